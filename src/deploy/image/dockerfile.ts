/**
 * What `docker build -f Dockerfile.distroless` makes of its final stage, read from the Dockerfile itself so
 * that the image scripts/image.ts assembles without a registry cannot drift from it (docs/install.md "The
 * image"): the base image, where the binary is copied, and the instructions that become the image's config.
 */
export interface FinalStage {
  /** The final `FROM` (e.g. gcr.io/distroless/cc-debian12:nonroot). */
  base: string;
  /** Where `COPY --from=…` puts the binary in the image (absolute path). */
  binaryPath: string;
  /** `USER` as written ("65532:65532"). */
  user: string;
  /** `EXPOSE` ports as the config's ExposedPorts keys ("8060/tcp"). */
  exposedPorts: string[];
  entrypoint: string[];
  cmd: string[];
  /** `LABEL key="value"` pairs, in the order written. */
  labels: Record<string, string>;
}

/**
 * The final stage of `text` (a Dockerfile). Throws, naming the line, on an instruction this reader does not
 * know in that stage (RUN cannot be reproduced without the base image's shell, which distroless lacks anyway).
 */
export function finalStage(text: string): FinalStage {
  const lines = joinContinuations(text);
  const from = lines.map((l, i) => ({ ...l, i })).filter((l) => /^FROM\s/i.test(l.text));
  const last = from.at(-1);
  if (!last) throw new Error("Dockerfile: no FROM line");
  const stage: FinalStage = {
    base: last.text.split(/\s+/)[1]!,
    binaryPath: "",
    user: "root",
    exposedPorts: [],
    entrypoint: [],
    cmd: [],
    labels: {},
  };
  for (const { text: line, number } of lines.slice(last.i + 1)) {
    const [instruction, ...rest] = line.split(/\s+/);
    const args = rest.join(" ");
    switch (instruction!.toUpperCase()) {
      case "COPY": {
        const paths = rest.filter((r) => !r.startsWith("--"));
        stage.binaryPath = paths.at(-1)!;
        break;
      }
      case "USER":
        stage.user = args;
        break;
      case "EXPOSE":
        stage.exposedPorts.push(...rest.map((p) => (p.includes("/") ? p : `${p}/tcp`)));
        break;
      case "ENTRYPOINT":
        stage.entrypoint = execForm(args, number);
        break;
      case "CMD":
        stage.cmd = execForm(args, number);
        break;
      case "LABEL":
        for (const m of args.matchAll(/([\w.\-/]+)="((?:[^"\\]|\\.)*)"/g))
          stage.labels[m[1]!] = m[2]!.replace(/\\(.)/g, "$1");
        break;
      default:
        throw new Error(
          `Dockerfile line ${number}: ${instruction} in the final stage is not reproduced by scripts/image.ts`,
        );
    }
  }
  if (!stage.binaryPath) throw new Error("Dockerfile: the final stage copies no binary");
  return stage;
}

function execForm(args: string, line: number): string[] {
  try {
    const parsed: unknown = JSON.parse(args);
    if (Array.isArray(parsed) && parsed.every((a) => typeof a === "string")) return parsed;
  } catch {}
  throw new Error(`Dockerfile line ${line}: ENTRYPOINT and CMD must be in exec form (a JSON array)`);
}

/** Logical lines (backslash continuations joined), without comments and blank lines, with their first line number. */
function joinContinuations(text: string): { text: string; number: number }[] {
  const out: { text: string; number: number }[] = [];
  let current: { text: string; number: number } | undefined;
  text.split("\n").forEach((raw, i) => {
    const line = raw.trim();
    if (!current && (line === "" || line.startsWith("#"))) return;
    if (current && line.startsWith("#")) return;
    const continued = line.endsWith("\\");
    const part = continued ? line.slice(0, -1).trim() : line;
    current = current ? { text: `${current.text} ${part}`, number: current.number } : { text: part, number: i + 1 };
    if (!continued) {
      out.push(current);
      current = undefined;
    }
  });
  if (current) out.push(current);
  return out;
}
