import { render, screen } from '@testing-library/svelte';
import { expect, test } from 'vitest';
import App from '../../src/app/App.svelte';

test('the app shell renders its title', () => {
  render(App);
  expect(screen.getByRole('heading', { level: 1 }).textContent).toBe('fliplab');
});
