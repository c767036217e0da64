/** A Service's ports as its manifest gives them. */
export interface ServicePort {
  readonly name?: string
  readonly port: number
  readonly protocol?: string
}

/**
 * The variables the kubelet sets in every container of a pod for one Service of its namespace, unless
 * the pod's spec says `enableServiceLinks: false` (Kubernetes's pkg/kubelet/envvars: the service's
 * `_SERVICE_HOST` and `_SERVICE_PORT*`, and Docker's link variables). A Service named
 * `taxonomy-mock` sets `TAXONOMY_MOCK_PORT=tcp://IP:80`, the server's own port variable.
 */
export function serviceLinkVariables(
  service: { readonly name: string; readonly ports: readonly ServicePort[] },
  clusterIp: string,
): Record<string, string> {
  const prefix = toVariableName(service.name)
  const variables: Record<string, string> = {
    [`${prefix}_SERVICE_HOST`]: clusterIp,
    [`${prefix}_SERVICE_PORT`]: String(service.ports[0]!.port),
  }
  for (const { name, port } of service.ports)
    if (name !== undefined)
      variables[`${prefix}_SERVICE_PORT_${toVariableName(name)}`] = String(port)
  service.ports.forEach(({ port, protocol = 'TCP' }, index) => {
    const address = `${protocol.toLowerCase()}://${clusterIp}:${port}`
    // Docker's links name the first port on its own too.
    if (index === 0) variables[`${prefix}_PORT`] = address
    const portPrefix = `${prefix}_PORT_${port}_${protocol.toUpperCase()}`
    variables[portPrefix] = address
    variables[`${portPrefix}_PROTO`] = protocol.toLowerCase()
    variables[`${portPrefix}_PORT`] = String(port)
    variables[`${portPrefix}_ADDR`] = clusterIp
  })
  return variables
}

function toVariableName(name: string): string {
  return name.toUpperCase().replace(/-/g, '_')
}
