import type { IncomingMessage, ServerResponse } from "node:http";
import { decodeProtobuf, PROTOBUF } from "./protobuf.ts";
import type { ResourceType } from "./resources.ts";
import { badRequest } from "./status.ts";
import type { KubeObject } from "./store.ts";

/*
 * How the simulated API server reads requests and writes answers, as kube-apiserver does: JSON with its
 * headers, plain text, the served form of an object, and request bodies in JSON or protobuf.
 */

/** An object as `type`'s version serves it: the stored object under this version's `apiVersion` (conversion None). */
export function asServed(type: ResourceType, object: KubeObject): KubeObject {
  const served = apiVersion(type);
  return object.apiVersion === served || object.kind === "Status" ? object : { ...object, apiVersion: served };
}

export function apiVersion(type: ResourceType): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

export function wantsTable(req: IncomingMessage): boolean {
  return /as=Table/.test(req.headers.accept ?? "");
}

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = `${JSON.stringify(body)}\n`;
  res.writeHead(code, {
    "Content-Type": "application/json",
    "Cache-Control": "no-cache, private",
    "Audit-Id": crypto.randomUUID(),
    "Content-Length": Buffer.byteLength(text),
  });
  res.end(text);
}

export function sendText(
  res: ServerResponse,
  code: number,
  text: string,
  contentType = "text/plain; charset=utf-8",
): void {
  res.writeHead(code, {
    "Content-Type": contentType,
    "Cache-Control": "no-cache, private",
    "X-Content-Type-Options": "nosniff",
  });
  res.end(text);
}

export async function readBytes(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

export async function readBody(req: IncomingMessage): Promise<string> {
  return (await readBytes(req)).toString("utf8");
}

/** The request's object: JSON, or protobuf as kubectl's typed clients send it (`decodeProtobuf`). */
export async function readJson(req: IncomingMessage, type: ResourceType): Promise<KubeObject> {
  if ((req.headers["content-type"] ?? "").startsWith(PROTOBUF)) return decodeProtobuf(await readBytes(req));
  const text = await readBody(req);
  try {
    return JSON.parse(text) as KubeObject;
  } catch (error) {
    throw badRequest(
      `the object provided is unrecognized (must be of type ${type.kind}): couldn't get version/kind; json parse error: ${(error as Error).message}`,
    );
  }
}

export async function readOptionalJson(req: IncomingMessage): Promise<Record<string, unknown> | undefined> {
  const text = await readBody(req);
  if (!text.trim()) return undefined;
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}
