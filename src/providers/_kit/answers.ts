import type { Message } from "../../model/message.ts";

/**
 * The answers on-call asks first (issue 32), as a message's text carries them: its "Changed:" and "Impact:"
 * lines, without their labels, for the custom details of paging tools. Empty when the message has neither.
 */
export function answerDetails(message: Pick<Message, "text">): { changed?: string; impact?: string } {
  const line = (label: string) =>
    message.text
      .split("\n")
      .find((l) => l.startsWith(`${label}: `))
      ?.slice(label.length + 2);
  const changed = line("Changed");
  const impact = line("Impact");
  return { ...(changed ? { changed } : {}), ...(impact ? { impact } : {}) };
}
