import { describe, expect, it } from 'vitest';
import { BlockedRequestError, guardNetwork } from '../../../src/worker/network-guard.ts';

describe('guardNetwork', () => {
  it('lets chosen origins and the own origin through and refuses everything else before it leaves', async () => {
    const sent: string[] = [];
    const scope = {
      location: { href: 'http://127.0.0.1:5173/assets/worker.js' },
      fetch: (async (input: RequestInfo | URL) => {
        sent.push(String(input instanceof URL ? input.href : input));
        return new Response('ok');
      }) as typeof fetch,
    };
    guardNetwork(['https://mirror.example.org/hub/'], scope);
    await scope.fetch('https://mirror.example.org/x/config.json');
    await scope.fetch('/models/a.onnx');
    await scope.fetch(new URL('http://127.0.0.1:5173/y'));
    await expect(scope.fetch('https://huggingface.co/x')).rejects.toBeInstanceOf(BlockedRequestError);
    await expect(scope.fetch('http://127.0.0.1:9999/other-port')).rejects.toThrow(/not one of the hosts/);
    expect(sent).toEqual(['https://mirror.example.org/x/config.json', '/models/a.onnx', 'http://127.0.0.1:5173/y']);
  });
});
