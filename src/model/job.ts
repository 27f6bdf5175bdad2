import type { Message } from "./message.ts";

/** Queue priority (spec 6 item 6): resolves and pages go ahead of routine messages. */
export type Priority = "urgent" | "routine";

/** One message for one provider (route/ output, deliver/ input). */
export interface Job {
  /** `<provider>:<message id>` */
  readonly id: string;
  readonly provider: string;
  readonly message: Message;
  readonly priority: Priority;
  /** Epoch ms when the job was queued; retries stop 24 h after it (spec 8). */
  readonly createdAt: number;
  /** For a resolve: the combined 'opened and resolved' message to send instead when the announcement never went out (spec 3.1). */
  readonly openedResolved?: Message;
}

/** How a provider classified one delivery attempt (STYLE.md convention 3). `conversation` is the vendor's thread id, when it gave one. */
export type Outcome =
  | { readonly kind: "ok"; readonly conversation?: string }
  | { readonly kind: "retry"; readonly reason: string; readonly afterMs?: number }
  | { readonly kind: "rateLimited"; readonly afterMs?: number }
  | { readonly kind: "permanent"; readonly reason: string };
