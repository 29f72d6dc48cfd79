import { describe, expect, it } from 'vitest';
import { urlWithoutPassword } from '../../devkit/tool-io.js';

describe('Function: urlWithoutPassword', () => {
  it.each([
    ['http://user:hunter2@127.0.0.1:1/webhook', 'http://user:***@127.0.0.1:1/webhook'],
    ['HTTPS://:token@hooks.example.com', 'HTTPS://:***@hooks.example.com'],
    // The parser splits userinfo from the host at the last @, so all of p@ss is the password.
    [
      'https://u:p@ss@hooks.example.com/webhook?q=a:b@c',
      'https://u:***@hooks.example.com/webhook?q=a:b@c',
    ],
    ['ftp://user:hunter2@example.com', 'ftp://user:***@example.com'],
  ])('hides the password of %s', (url, shown) => {
    // Act & Assess
    expect(urlWithoutPassword(url)).toBe(shown);
  });

  it.each([
    'http://127.0.0.1:3000/webhook',
    'http://user@hooks.example.com:8443/webhook',
    'http://hooks.example.com/a:b@c',
    'not a url: a@b',
  ])('leaves %s, which holds no password, as typed', (url) => {
    // Act & Assess
    expect(urlWithoutPassword(url)).toBe(url);
  });
});
