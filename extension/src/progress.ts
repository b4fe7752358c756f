// VS Code's progress takes increments while LSP reports absolute
// percentages; this turns one into the other.

/** Turns absolute percentages into the increments VS Code adds up. */
export class PercentTracker {
  private last = 0;

  /** The increment to report for pct, or undefined when there is nothing to add. */
  increment(pct: number | undefined): number | undefined {
    if (pct === undefined || !Number.isFinite(pct)) {
      return undefined;
    }
    const clamped = Math.min(100, Math.max(0, pct));
    if (clamped <= this.last) {
      return undefined;
    }
    const step = clamped - this.last;
    this.last = clamped;
    return step;
  }
}
