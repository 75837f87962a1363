import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { checkFetchUrl, checkUrlShape, FetchPolicyError, isForbiddenAddress, type HostLookup } from './fetch-policy.js';

/** A resolver from a fixed table; an unknown name fails as the system resolver would. */
function table(entries: Record<string, readonly string[]>): HostLookup {
  return async (hostname) => {
    const addresses = entries[hostname];
    if (addresses === undefined) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };
}

const lookup = table({
  'auth.example.com': ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'internal.example.com': ['10.0.0.7'],
  'rebind.example.com': ['169.254.169.254'],
  'half-rebind.example.com': ['93.184.215.14', '169.254.169.254'],
  'v6-metadata.example.com': ['fd00:ec2::254'],
  'mapped.example.com': ['::ffff:169.254.169.254'],
  localhost: ['127.0.0.1', '::1'],
  'evil-localhost.localhost': ['93.184.215.14'],
});

describe('the OAuth fetch policy', () => {
  const cases: ReadonlyArray<readonly [string, 'allowed' | 'refused']> = [
    ['https://auth.example.com/.well-known/jwks.json', 'allowed'],
    ['https://internal.example.com/introspect', 'allowed'],
    ['http://127.0.0.1:8080/jwks', 'allowed'],
    ['http://127.8.9.10/jwks', 'allowed'],
    ['http://[::1]:3000/jwks', 'allowed'],
    ['http://localhost:3000/jwks', 'allowed'],
    ['http://auth.example.com/jwks', 'refused'],
    ['http://10.0.0.7/jwks', 'refused'],
    ['ftp://auth.example.com/jwks', 'refused'],
    ['file:///etc/passwd', 'refused'],
    ['https://user:pass@auth.example.com/jwks', 'refused'],
    ['https://169.254.169.254/latest/meta-data/', 'refused'],
    ['https://169.254.1.2/', 'refused'],
    ['https://[fe80::1]/', 'refused'],
    ['https://[fd00:ec2::254]/', 'refused'],
    ['https://[::ffff:169.254.169.254]/', 'refused'],
    ['https://0.0.0.0/', 'refused'],
    ['https://[::]/', 'refused'],
    ['https://metadata.google.internal/computeMetadata/v1/', 'refused'],
    ['https://METADATA.GOOGLE.INTERNAL./computeMetadata/v1/', 'refused'],
    ['https://rebind.example.com/jwks', 'refused'],
    ['https://half-rebind.example.com/jwks', 'refused'],
    ['https://v6-metadata.example.com/jwks', 'refused'],
    ['https://mapped.example.com/jwks', 'refused'],
    ['http://evil-localhost.localhost/jwks', 'refused'],
    ['not a url', 'refused'],
  ];
  for (const [url, verdict] of cases) {
    test(`${url} is ${verdict}`, async () => {
      const check = checkFetchUrl(url, { lookup });
      if (verdict === 'allowed') await check;
      else await assert.rejects(check, FetchPolicyError);
    });
  }

  test('a host name that resolves to the cloud metadata address is refused, naming no query', async () => {
    await assert.rejects(checkFetchUrl('https://rebind.example.com/jwks?secret=s3cr3t', { lookup }), (error: unknown) => {
      assert.ok(error instanceof FetchPolicyError);
      assert.match(error.message, /link-local, metadata/);
      assert.doesNotMatch(error.message, /s3cr3t/);
      return true;
    });
  });

  test('plain http to loopback can be switched off', () => {
    assert.throws(() => checkUrlShape('http://127.0.0.1/jwks', { allowHttpLoopback: false }), FetchPolicyError);
  });

  test('the checked addresses are returned, for the connection to use', async () => {
    const { addresses } = await checkFetchUrl('https://auth.example.com/x', { lookup });
    assert.deepEqual(addresses.map((a) => a.address), ['93.184.215.14', '2606:2800:21f:cb07:6820:80da:af6b:8b2c']);
  });

  test('a name that does not resolve rejects with the resolver error', async () => {
    await assert.rejects(checkFetchUrl('https://nowhere.example.com/', { lookup }), /ENOTFOUND/);
  });

  test('address classification', () => {
    assert.equal(isForbiddenAddress('169.254.169.254'), true);
    assert.equal(isForbiddenAddress('100.100.100.200'), true);
    assert.equal(isForbiddenAddress('fe80::abcd'), true);
    assert.equal(isForbiddenAddress('10.1.2.3'), false);
    assert.equal(isForbiddenAddress('127.0.0.1'), false);
    assert.equal(isForbiddenAddress('not-an-ip'), true);
  });
});
