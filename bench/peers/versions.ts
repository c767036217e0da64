/**
 * The pinned peers, exact versions, chosen on 2026-11-21 from npm: each `latest`, unless it cannot
 * run on Node 20 (the project's oldest supported Node and the bench machine's).
 */
export const PEER_VERSIONS = {
  // `latest`; 1.0 is still a beta, and it has neither custom routes nor middleware, so it cannot
  // serve /api/v2/... at all.
  'json-server': '0.17.4',
  // 5.15 and later declare Node >= 24.
  '@stoplight/prism-cli': '5.14.2',
  '@mockoon/cli': '9.9.0',
  '@mswjs/http-middleware': '0.10.3',
  // The kit's own dev dependency; msw 3 declares Node >= 22.12.
  msw: '2.15.0',
  fastify: '5.12.8',
} as const
