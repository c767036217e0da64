import { execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { Deployment } from 'kubernetes-models/apps/v1'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1'
import { Service } from 'kubernetes-models/v1'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { parseAllDocuments } from 'yaml'
import { until } from '../helpers/clock.js'
import { podman } from '../helpers/podman.js'

const { env, image, redis, prefix, kubectl } = inject('containers')
Object.assign(process.env, env)

const ROOT = fileURLToPath(new URL('../../', import.meta.url))
const BASE = 'deploy/kubernetes/base'
const NO_REDIS = 'deploy/kubernetes/overlays/no-redis'
const ADMIN_KEY = 'kube-play-admin-key-9'

/** The API schema of each kind the manifests hold (kubernetes-models: the OpenAPI of Kubernetes). */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1 Deployment': Deployment,
  'v1 Service': Service,
  'networking.k8s.io/v1 Ingress': Ingress,
}

interface Manifest {
  apiVersion: string
  kind: string
  metadata: { name: string; annotations?: Record<string, string> }
  spec: Record<string, any>
}

/** `kubectl kustomize DIR`, as `kubectl apply -k DIR` would apply it: its objects. */
function render(dir: string): { text: string; objects: Manifest[] } {
  const text = execFileSync(kubectl, ['kustomize', dir], { cwd: ROOT, encoding: 'utf8' })
  return { text, objects: parseAllDocuments(text).map((document) => document.toJS() as Manifest) }
}

/** Validates an object against the API schema of its kind (client-side: no cluster here). */
function validate(object: Manifest): void {
  const Model = MODELS[`${object.apiVersion} ${object.kind}`]
  if (Model === undefined) throw new Error(`no schema for ${object.apiVersion} ${object.kind}`)
  new Model(object as never).validate()
}

const find = (objects: Manifest[], kind: string, name: string) =>
  objects.find((object) => object.kind === kind && object.metadata.name === name)

describe('deploy/kubernetes (Kustomize)', () => {
  it('validates every object of the base and the overlay against the Kubernetes API schema', () => {
    for (const dir of [BASE, NO_REDIS]) for (const object of render(dir).objects) validate(object)
    // The check can fail: a count given as text is refused.
    const deployment = find(render(BASE).objects, 'Deployment', 'taxonomy-mock')!
    expect(() =>
      validate({ ...deployment, spec: { ...deployment.spec, replicas: 'three' } }),
    ).toThrow(/replicas/)
  })

  it('runs three replicas that are probed, bounded, non-root, read-only and drained, beside Redis', () => {
    const { objects } = render(BASE)
    expect(objects.map((object) => `${object.kind}/${object.metadata.name}`).sort()).toEqual([
      'Deployment/taxonomy-mock',
      'Deployment/taxonomy-mock-redis',
      'Service/taxonomy-mock',
      'Service/taxonomy-mock-redis',
    ])
    const { spec } = find(objects, 'Deployment', 'taxonomy-mock')!
    expect(spec.replicas).toBe(3)
    const pod = spec.template.spec
    const [container] = pod.containers
    expect(pod.securityContext.runAsNonRoot).toBe(true)
    expect(container.securityContext.readOnlyRootFilesystem).toBe(true)
    expect(container.readinessProbe.httpGet.path).toBe('/__health')
    expect(container.livenessProbe.httpGet.path).toBe('/__health')
    expect(container.resources.requests).toBeDefined()
    // Room for the default memory budget's ceiling (about 1 GB), and a writable /tmp under the
    // read-only root (--tls writes its certificate file there).
    expect(container.args).not.toContain('--memory-budget')
    expect(container.resources.limits.memory).toBe('1Gi')
    expect(container.volumeMounts).toContainEqual({ name: 'tmp', mountPath: '/tmp' })
    expect(pod.volumes).toContainEqual({ name: 'tmp', emptyDir: { sizeLimit: '64Mi' } })
    expect(container.lifecycle.preStop.exec.command[0]).toBe('/usr/local/bin/node')
    expect(pod.terminationGracePeriodSeconds).toBeGreaterThan(5)
    expect(container.env).toContainEqual({
      name: 'TAXONOMY_MOCK_STORE',
      value: 'redis://taxonomy-mock-redis:6379',
    })
  })

  it('leaves Redis out in the overlay, and routes by the session header at the ingress', () => {
    const { objects } = render(NO_REDIS)
    expect(objects.some((object) => object.metadata.name === 'taxonomy-mock-redis')).toBe(false)
    const [container] = find(objects, 'Deployment', 'taxonomy-mock')!.spec.template.spec.containers
    expect(container.env.map((variable: { name: string }) => variable.name)).not.toContain(
      'TAXONOMY_MOCK_STORE',
    )
    expect(find(objects, 'Ingress', 'taxonomy-mock')!.metadata.annotations).toEqual({
      'nginx.ingress.kubernetes.io/upstream-hash-by': '$http_x_taxonomy_mock_session',
    })
  })
})

describe('the base under podman kube play (the stand-in for a cluster)', () => {
  const dir = join(ROOT, '.tmp', `${prefix}-kube`)
  const network = `${prefix}-kube`
  const rendered = join(dir, 'rendered.yaml')

  afterAll(async () => {
    await podman(['kube', 'down', rendered]).catch(() => {})
    await podman(['network', 'rm', '-f', network]).catch(() => {})
    rmSync(dir, { recursive: true, force: true })
  })

  it('starts three replicas that share their sessions through the Redis pod', async () => {
    // What podman lacks of a cluster, changed in a kustomization of the test's own: no Services
    // (the replicas reach Redis by its pod's name), containerPort would be published on the host
    // (left out; probes name the port by number), no Secret (the admin key given as a value). The
    // names take this run's prefix, so that the run's clean-up finds whatever is left.
    mkdirSync(dir, { recursive: true })
    writeFileSync(
      join(dir, 'kustomization.yaml'),
      `resources:
  - ../../${BASE}
namePrefix: ${prefix}-
images:
  - { name: taxonomy-mock, newName: ${image.split(':')[0]}, newTag: latest }
  - { name: redis, newName: ${redis.split(':')[0]}, newTag: latest }
patches:
  - target: { kind: Deployment, name: taxonomy-mock }
    patch: |-
      - { op: replace, path: /spec/template/spec/containers/0/env/0/value, value: 'redis://${prefix}-taxonomy-mock-redis-pod-0:6379' }
      - { op: replace, path: /spec/template/spec/containers/0/env/2, value: { name: TAXONOMY_MOCK_ADMIN_KEY, value: ${ADMIN_KEY} } }
      - { op: remove, path: /spec/template/spec/containers/0/ports }
      - { op: replace, path: /spec/template/spec/containers/0/readinessProbe/httpGet/port, value: 4477 }
      - { op: replace, path: /spec/template/spec/containers/0/livenessProbe/httpGet/port, value: 4477 }
  - target: { kind: Deployment, name: taxonomy-mock-redis }
    patch: |-
      - { op: remove, path: /spec/template/spec/containers/0/ports }
      - { op: replace, path: /spec/template/spec/containers/0/readinessProbe/tcpSocket/port, value: 6379 }
      - { op: replace, path: /spec/template/spec/containers/0/livenessProbe/tcpSocket/port, value: 6379 }
`,
    )
    writeFileSync(rendered, render(dir).text)
    await podman(['network', 'create', network])
    // Replicas started before Redis exit 1 and are started again (restartPolicy: Always).
    await podman(['kube', 'play', '--network', network, rendered]).catch(() => {})
    const replicas = [0, 1, 2].map((n) => `${prefix}-taxonomy-mock-pod-${n}`)
    const urls: string[] = []
    for (const pod of replicas) {
      const infra = await podman(['pod', 'inspect', pod, '--format', '{{.InfraContainerID}}'])
      const address = await podman([
        'inspect',
        infra,
        '--format',
        `{{(index .NetworkSettings.Networks "${network}").IPAddress}}`,
      ])
      urls.push(`http://${address}:4477`)
    }
    for (const url of urls)
      await until(
        async () => (await fetch(`${url}/__health`).catch(() => undefined))?.status === 200,
        `${url} ready`,
      )
    for (const pod of replicas) {
      const container = `${pod}-taxonomy-mock`
      expect(
        await podman([
          'inspect',
          container,
          '--format',
          '{{.HostConfig.ReadonlyRootfs}} {{.Config.User}}',
        ]),
      ).toBe('true 10001:10001')
    }
    const put = await fetch(`${urls[0]}/__admin/sessions/kube/scenario`, {
      method: 'PUT',
      headers: { 'x-taxonomy-mock-admin-key': ADMIN_KEY },
      body: JSON.stringify('unavailable'),
    })
    expect(put.status).toBe(200)
    for (const url of urls) {
      const answer = await fetch(`${url}/api/v2/disciplines/history`, {
        headers: { authorization: 'Bearer taxonomy-mock-key', 'x-taxonomy-mock-session': 'kube' },
      })
      expect(answer.status).toBe(503)
    }
  }, 180_000)
})
