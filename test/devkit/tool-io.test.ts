import { describe, expect, it } from 'vitest';
import { urlWithoutPassword } from '../../devkit/tool-io.js';

describe('Function: urlWithoutPassword', () => {
  it.each([
    ['http://user:hunter2@127.0.0.1:1/webhook', 'http://***@127.0.0.1:1/webhook'],
    ['HTTPS://:token@hooks.example.com', 'HTTPS://***@hooks.example.com'],
    // The parser splits userinfo from the host at the last @, so all of p@ss is the password.
    [
      'https://u:p@ss@hooks.example.com/webhook?q=a:b@c',
      'https://***@hooks.example.com/webhook?q=a:b@c',
    ],
    ['ftp://user:hunter2@example.com', 'ftp://***@example.com'],
    // A token is often given as the user name alone.
    ['https://ghp_token@hooks.example.com/webhook', 'https://***@hooks.example.com/webhook'],
    // Forms the parser reads as http://user:pw@host/x.
    ['http:user:pw@host/x', 'http:***@host/x'],
    ['http:\\\\user:pw@host/x', 'http:\\\\***@host/x'],
    // No valid URL (the password holds a /): everything up to the last @.
    ['http://user:pa/ss@host', 'http://***@host'],
    // Typed without http:// (refused with an error that quotes it): `user:` is no scheme.
    ['user:s3cret@127.0.0.1:4100/webhook', '***@127.0.0.1:4100/webhook'],
    ['//user:s3cret@127.0.0.1:4100/webhook', '//***@127.0.0.1:4100/webhook'],
    ['ghp_token@hooks.example.com/webhook', '***@hooks.example.com/webhook'],
  ])('hides the userinfo of %s', (url, shown) => {
    // Act & Assess
    expect(urlWithoutPassword(url)).toBe(shown);
  });

  it.each(['http://127.0.0.1:3000/webhook', 'http://hooks.example.com/a:b@c', 'not a url: a@b'])(
    'leaves %s, which holds no userinfo, as typed',
    (url) => {
      // Act & Assess
      expect(urlWithoutPassword(url)).toBe(url);
    },
  );
});
