/**
 * A teacher signs in through the school's OpenID provider (a real one, oidc-provider, started
 * here on loopback; the server at http://classroom.test is configured with it in
 * playwright.config.ts) and starts a lesson. A callback the browser did not start is refused with
 * its reason on the page and no sign-in.
 */
import { randomBytes } from 'node:crypto';
import { signInErrorText, OidcSignInError } from '@wb/protocol';
import { startTestProvider, type TestProvider } from '../test/support/oidcProvider.ts';
import { CLASSROOM_URL, E2E_OIDC } from './origins.ts';
import { expect, expectLive, test } from './support.ts';

let provider: TestProvider;
test.beforeAll(async () => {
  provider = await startTestProvider({
    redirectUris: [`${CLASSROOM_URL}/api/teacher/oidc/${E2E_OIDC.providerId}/callback`],
    port: E2E_OIDC.port,
    clientId: E2E_OIDC.clientId,
    clientSecret: E2E_OIDC.clientSecret,
  });
});
test.afterAll(async () => {
  await provider?.close();
});

test('a teacher signs in with the school account through the OpenID provider and starts a lesson', async ({ browser }) => {
  const id = randomBytes(4).toString('hex');
  provider.signInAs({ sub: `okafor-${id}`, email: `okafor.${id}@school.example`, name: 'Ms Okafor' });
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto('/teacher');
  await page.getByRole('link', { name: 'Continue with School account' }).click();
  // Through the provider (127.0.0.1) and back to the classroom's own address, signed in.
  await page.waitForURL(`${CLASSROOM_URL}/teacher`);
  await expect(page.getByText('Signed in as')).toContainText('Ms Okafor');
  await expect(page.getByText('Signed in as')).toContainText(`okafor.${id}@school.example`);
  expect(await page.evaluate(() => document.cookie)).not.toMatch(/wb_teacher|wb_oidc/);

  await page.getByLabel('Lesson title (optional)').fill('Photosynthesis');
  await page.getByRole('button', { name: 'Start lesson' }).click();
  await page.waitForURL(/\/r\/[A-Z2-9]{6}$/);
  await expectLive(page);
  await page.goto('/teacher');
  await expect(page.getByTestId('teacher-room').filter({ hasText: 'Photosynthesis' })).toHaveCount(1);
});

test('a provider callback this browser did not start is refused with its reason, and nobody is signed in', async ({ browser }) => {
  const context = await browser.newContext();
  const page = await context.newPage();
  await page.goto(`/api/teacher/oidc/${E2E_OIDC.providerId}/callback?code=stolen-code&state=forged-state`);
  await page.waitForURL(`${CLASSROOM_URL}/teacher`);
  await expect(page.getByRole('alert')).toHaveText(signInErrorText[OidcSignInError.STATE_MISMATCH]);
  await expect(page.getByRole('region', { name: 'Sign in', exact: true })).toBeVisible();
});
