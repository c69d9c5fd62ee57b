import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loginPage } from '../../src/login/login-page.js';
import { safeReturnTo } from '../../src/pages/return-to.js';

describe('safeReturnTo', () => {
  test('keeps paths on this service, with query and fragment', () => {
    assert.equal(safeReturnTo('/books?page=2&size=20'), '/books?page=2&size=20');
    assert.equal(safeReturnTo('/swagger-ui.html#/books'), '/swagger-ui.html#/books');
  });

  test('falls back to the home page for anything that could leave the origin or is not a string', () => {
    for (const raw of [
      '//evil.example/x',
      '/\\evil.example',
      'https://evil.example/',
      'books',
      '/a\nb',
      '',
      42,
      undefined,
    ]) {
      assert.equal(safeReturnTo(raw), '/', String(raw));
    }
    assert.equal(safeReturnTo(`/${'a'.repeat(3000)}`), '/');
  });
});

describe('loginPage', () => {
  test('links every provider, escapes names, and tells a signed-out user so', () => {
    const html = loginPage({
      providers: [
        { id: 'dev', name: 'Development sign-in' },
        { id: 'evil', name: '<script>x</script>' },
      ],
      loggedOut: true,
    });
    assert.match(html, /<a class="button" href="\/oauth2\/authorization\/dev">Development sign-in<\/a>/);
    assert.match(html, /&#60;script&#62;x&#60;\/script&#62;/);
    assert.doesNotMatch(html, /<script>/);
    assert.match(html, /You have been signed out/);
  });

  test('says so when no provider is configured, and shows a login error', () => {
    const html = loginPage({ providers: [], loggedOut: false, error: 'state mismatch' });
    assert.match(html, /No login provider is configured/);
    assert.match(html, /role="alert">state mismatch/);
  });
});
