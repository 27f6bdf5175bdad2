const NEWLINE = 10;

/**
 * Splits a watch stream's bytes into its lines (one JSON event each, kube-apiserver ends each with `\n`),
 * without a decoding stream or a growing string: newlines are found in the bytes, and each line is decoded
 * once, from the chunk it lies in (or, when it spans chunks, from the pieces joined once). A UTF-8 character
 * cut between two chunks is whole again in the joined line. Blank lines are skipped.
 */
export class LineSplitter {
  private readonly decoder = new TextDecoder();
  private pieces: Uint8Array[] = [];
  private pending = 0;

  /** Feeds one chunk; calls `onLine` with each line it completes, in order. Throws what `onLine` throws. */
  push(chunk: Uint8Array, onLine: (line: string) => void): void {
    let start = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, start)) {
      const line = this.pending > 0 ? this.joined(chunk.subarray(start, end)) : chunk.subarray(start, end);
      start = end + 1;
      if (line.length > 0 && !blank(line)) onLine(this.decoder.decode(line));
    }
    if (start < chunk.length) {
      // Copied: the stream may reuse the chunk's buffer for the next read.
      this.pieces.push(chunk.slice(start));
      this.pending += chunk.length - start;
    }
  }

  /** Bytes of an incomplete line held (a stream that ends here ended mid-event). */
  get held(): number {
    return this.pending;
  }

  // --- internal ---

  private joined(last: Uint8Array): Uint8Array {
    const out = new Uint8Array(this.pending + last.length);
    let at = 0;
    for (const piece of this.pieces) {
      out.set(piece, at);
      at += piece.length;
    }
    out.set(last, at);
    this.pieces = [];
    this.pending = 0;
    return out;
  }
}

/** True for a line of spaces, tabs and carriage returns only. */
function blank(line: Uint8Array): boolean {
  for (const b of line) if (b !== 32 && b !== 9 && b !== 13) return false;
  return true;
}
