/**
 * Plain output when standard output is not a terminal (a pipe, a file, CI logs): colour codes there are noise.
 * Imported first by src/main.ts, because citty and consola decide on colour when they are loaded. NO_COLOR set
 * by the user wins either way (https://no-color.org).
 */
if (!process.stdout.isTTY && process.env.NO_COLOR === undefined) process.env.NO_COLOR = "1";
