import { execFile, execFileSync } from 'node:child_process'
import { mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { Deployment } from 'kubernetes-models/apps/v1'
import { Ingress } from 'kubernetes-models/networking.k8s.io/v1'
import { Service } from 'kubernetes-models/v1'
import { afterAll, describe, expect, inject, it } from 'vitest'
import { parseAllDocuments, stringify } from 'yaml'
import { until } from '../helpers/clock.js'
import { podman } from '../helpers/podman.js'
import { serviceLinkVariables } from '../helpers/service-links.js'

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

/**
 * The objects with what the kubelet adds to each container's environment and podman does not: the
 * service link variables of the `services` (`TAXONOMY_MOCK_PORT=tcp://IP:80` among them), in pods
 * that do not turn service links off. A variable the container sets itself wins, as in a cluster.
 */
function withServiceLinks(objects: Manifest[], services: Manifest[]): Manifest[] {
  const links = Object.assign(
    {},
    ...services
      .filter((object) => object.kind === 'Service')
      .map((service, index) =>
        serviceLinkVariables(
          { name: service.metadata.name, ports: service.spec.ports },
          `10.96.0.${index + 10}`,
        ),
      ),
  ) as Record<string, string>
  return objects.map((object) => {
    const pod = object.kind === 'Deployment' ? object.spec.template.spec : undefined
    if (pod === undefined || pod.enableServiceLinks === false) return object
    const copy = structuredClone(object)
    for (const container of copy.spec.template.spec.containers) {
      const own = new Set((container.env ?? []).map((variable: { name: string }) => variable.name))
      container.env = [
        ...Object.entries(links)
          .filter(([name]) => !own.has(name))
          .map(([name, value]) => ({ name, value })),
        ...(container.env ?? []),
      ]
    }
    return copy
  })
}

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
    // The Service's link would set TAXONOMY_MOCK_PORT=tcp://IP:80, which the server refuses.
    expect(pod.enableServiceLinks).toBe(false)
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
    const pod = find(objects, 'Deployment', 'taxonomy-mock')!.spec.template.spec
    expect(pod.enableServiceLinks).toBe(false)
    const [container] = pod.containers
    expect(container.env.map((variable: { name: string }) => variable.name)).not.toContain(
      'TAXONOMY_MOCK_STORE',
    )
    expect(find(objects, 'Ingress', 'taxonomy-mock')!.metadata.annotations).toEqual({
      'nginx.ingress.kubernetes.io/upstream-hash-by': '$http_x_taxonomy_mock_session',
    })
  })
})

/** A container's last lines on stderr, where the CLI says why it exited. */
async function lastErrors(container: string): Promise<string> {
  const { stderr } = await promisify(execFile)('podman', ['logs', '--tail', '3', container])
  return stderr.trim()
}

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
    // names take this run's prefix, so that the run's clean-up finds whatever is left. What the
    // kubelet adds, the Services' link variables, is added to the rendered objects below.
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
    writeFileSync(
      rendered,
      // The links of the Services as a cluster names them, not with this run's prefix.
      withServiceLinks(render(dir).objects, render(BASE).objects)
        .map((object) => stringify(object))
        .join('---\n'),
    )
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
    for (const [index, url] of urls.entries())
      await until(async () => {
        if ((await fetch(`${url}/__health`).catch(() => undefined))?.status === 200) return true
        // Exit code 2, a usage error, is no wait for Redis: restarts would only repeat it.
        const container = `${replicas[index]}-taxonomy-mock`
        if ((await podman(['inspect', container, '--format', '{{.State.ExitCode}}'])) === '2')
          throw new Error(`${container} exited 2: ${await lastErrors(container)}`)
        return false
      }, `${url} ready`)
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
