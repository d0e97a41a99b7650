import { describe, expect, it } from 'vitest';
import { adapterName, isSoftwareAdapter } from '../../../src/encoders/adapter.ts';

const adapter = (o: Partial<Parameters<typeof isSoftwareAdapter>[0]>) => ({
  vendor: '',
  architecture: '',
  device: '',
  description: '',
  isFallbackAdapter: false,
  ...o,
});

describe('WebGPU adapters', () => {
  it('tell software renderers and fallback adapters from GPUs', () => {
    expect(isSoftwareAdapter(adapter({ vendor: 'google', architecture: 'swiftshader' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ description: 'Microsoft Basic Render Driver' }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ vendor: 'nvidia', architecture: 'ampere', isFallbackAdapter: true }))).toBe(true);
    expect(isSoftwareAdapter(adapter({ vendor: 'nvidia', architecture: 'ampere' }))).toBe(false);
    expect(isSoftwareAdapter(adapter({ vendor: 'apple', architecture: 'metal-3' }))).toBe(false);
    expect(isSoftwareAdapter(adapter({ vendor: 'intel', architecture: 'gen-12lp', description: 'Intel(R) Iris(R) Xe Graphics' }))).toBe(
      false,
    );
  });

  it('are named by vendor and architecture for the retriever row', () => {
    expect(adapterName(adapter({ vendor: 'google', architecture: 'swiftshader' }))).toBe('google swiftshader');
    expect(adapterName(adapter({ vendor: 'nvidia', architecture: 'ampere', isFallbackAdapter: true }))).toBe(
      'nvidia ampere, fallback adapter',
    );
    expect(adapterName(adapter({ description: 'Some GPU' }))).toBe('Some GPU');
    expect(adapterName(adapter({}))).toBe('unnamed adapter');
  });
});
