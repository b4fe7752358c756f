// Reads that overlap (a run's end and its last status each ask the server
// again) may end in any order: only the newest one's answer is shown.

/** Hands each read a check that says whether it is still the newest. */
export class Newest {
  private count = 0;

  /** Begins a read; the function says, when it ends, whether no read began since. */
  begin(): () => boolean {
    const mine = ++this.count;
    return () => mine === this.count;
  }
}
