// discipline.spec.ts: each test puts the API into its own state; tests run in parallel.
import { failNetwork, failTimes, failWith, hideSlug } from 'taxonomy-mock/msw'
import { expect, test } from './fixtures.js'

test('shows a discipline', async ({ page }) => {
  await page.goto('/')
  await expect(page.locator('#result')).toHaveText('Pharmacology')
})

test('shows an outage after one retry', async ({ network, page }) => {
  network.use(...failWith(503))
  await page.goto('/')
  await expect(page.locator('#result')).toHaveText('503 Service unavailable')
})

test('recovers when the first request fails', async ({ network, page }) => {
  network.use(...failTimes(1))
  await page.goto('/')
  await expect(page.locator('#result')).toHaveText('Pharmacology')
})

test('shows a missing discipline', async ({ network, page }) => {
  network.use(...hideSlug('pharmacology'))
  await page.goto('/')
  await expect(page.locator('#result')).toHaveText('404 Resource not found')
})

test('shows a network error', async ({ network, page }) => {
  network.use(...failNetwork())
  await page.goto('/')
  await expect(page.locator('#result')).toHaveText('network error')
})
