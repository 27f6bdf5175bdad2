import * as v from "valibot";
import { defineProvider } from "./_kit/define.ts";

const Options = v.object({});

/** Writes each message as human-readable text to standard output; what `mon demo` shows. Never fails. */
export default defineProvider({
  name: "stdout",
  kind: "chat",
  title: "Standard output",
  threading: "none",
  options: Options,
  credentials: [],
  plainText: true,
  create(_options, deps) {
    return {
      async send(message) {
        deps.stdout(`${message.text}\n`);
        return { kind: "ok" };
      },
    };
  },
});
