/** A duration for people: `42 s`, `2 min 30 s` (seconds shown below 5 minutes), `7 min`, `3 h 5 min`, `2 d 4 h`. */
export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  // Seconds still matter within the first few minutes ("2 min 30 s", not "2 min").
  if (m < 5 && s % 60) return `${m} min ${s % 60} s`;
  if (m < 60) return `${m} min`;
  const h = Math.floor(m / 60);
  if (h < 48) return `${h} h${m % 60 ? ` ${m % 60} min` : ""}`;
  return `${Math.floor(h / 24)} d${h % 24 ? ` ${h % 24} h` : ""}`;
}
