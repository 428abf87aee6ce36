import { prefersText } from './negotiate';

describe('prefersText (Accept negotiation for the context)', () => {
  it.each([
    ['text/plain', true],
    ['text/plain; charset=utf-8', true],
    ['TEXT/PLAIN', true],
    ['text/*', true],
    ['text/plain, application/json;q=0.5', true],
    ['application/json;q=0.1, text/*;q=0.2', true],
  ])('%s → text', (accept, expected) => expect(prefersText(accept)).toBe(expected));

  it.each([
    [undefined, false],
    ['', false],
    ['*/*', false],
    ['application/json', false],
    ['application/json, text/plain, */*', false], // axios' default: a tie keeps JSON
    ['text/plain;q=0.5, application/json', false],
    ['text/html', false],
    ['text/plain;q=0', false],
    ['garbage', false],
  ])('%s → JSON', (accept, expected) => expect(prefersText(accept)).toBe(expected));
});
