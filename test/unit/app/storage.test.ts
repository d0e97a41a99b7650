import { describe, expect, it } from 'vitest';
import { modelOf } from '../../../src/app/state/storage.ts';

describe('modelOf', () => {
  it('groups cached model files by host and repo', () => {
    expect(modelOf('https://huggingface.co/Xenova/bge-small-en-v1.5/resolve/main/onnx/model.onnx')).toBe(
      'huggingface.co/Xenova/bge-small-en-v1.5',
    );
    expect(modelOf('http://127.0.0.1:8080/fliplab/tiny-bert/resolve/main/tokenizer.json')).toBe('127.0.0.1:8080/fliplab/tiny-bert');
    expect(modelOf('https://mirror.example.org/org/model%20x/resolve/v1.0/config.json')).toBe('mirror.example.org/org/model x');
    expect(modelOf('http://127.0.0.1:8080/local-models/local/mine/config.json')).toBe('127.0.0.1:8080/local-models/local');
  });
});
