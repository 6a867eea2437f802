/** The order of a transcript's messages, shared by the extension's store and the panel's page. */

export interface OrderFields {
  sequence?: number;
  /** Ordered by this instead of `sequence` when present (the page's copy of an implausible sequence). */
  orderSequence?: number;
  createdAt?: number;
  arrival: number;
}

/**
 * Transcript order, shared by the extension's cache and the webview's timeline: by `sequence`,
 * then `createdAt`, then first arrival. A missing value sorts after every present one, which
 * keeps the order total (a plain "compare when both have it" would not be transitive).
 */
export function compareOrder(a: OrderFields, b: OrderFields): number {
  const sa = a.orderSequence ?? a.sequence ?? Number.POSITIVE_INFINITY;
  const sb = b.orderSequence ?? b.sequence ?? Number.POSITIVE_INFINITY;
  if (sa !== sb) {
    return sa < sb ? -1 : 1;
  }
  const ca = a.createdAt ?? Number.POSITIVE_INFINITY;
  const cb = b.createdAt ?? Number.POSITIVE_INFINITY;
  if (ca !== cb) {
    return ca < cb ? -1 : 1;
  }
  return a.arrival - b.arrival;
}
