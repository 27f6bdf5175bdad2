/**
 * An error whose message is the whole story for the person who ran mon (what is wrong and what to do): the CLI
 * prints it as one line, never with a stack trace (STYLE.md "bad input gets a clear one-line error").
 */
export class UserError extends Error {
  override readonly name = "UserError";
}
