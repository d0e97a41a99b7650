/**
 * What one tab tells the others of this origin: "this collection's judgments changed", "the stored
 * collections changed", … (BroadcastChannel). A message names what changed, never the data: the receiver
 * reads the new state from IndexedDB, where the writer put it first, so a message can never carry a state
 * older than the store's. A browser without BroadcastChannel simply hears nothing.
 */

export type TabMessage =
  | { readonly kind: 'judgments'; readonly collectionId: string }
  | { readonly kind: 'collections' }
  | { readonly kind: 'answers'; readonly collectionId: string };

const CHANNEL = 'fliplab';

export interface TabChannel {
  post(message: TabMessage): void;
  close(): void;
}

/** Listen to the other tabs (never to this one's own posts) and post to them. */
export function tabChannel(onMessage: (message: TabMessage) => void): TabChannel {
  if (typeof BroadcastChannel === 'undefined') return { post: () => undefined, close: () => undefined };
  const channel = new BroadcastChannel(CHANNEL);
  channel.onmessage = (e: MessageEvent<TabMessage>) => onMessage(e.data);
  return {
    post: (message) => channel.postMessage(message),
    close: () => channel.close(),
  };
}
