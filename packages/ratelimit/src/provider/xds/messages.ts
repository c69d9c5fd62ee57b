/** ADS messages as @grpc/proto-loader presents them (keepCase, enums as strings). */

export interface AnyMessage {
  type_url: string;
  value: Buffer;
}

/** google.protobuf.Value: protobufjs's built-in definition names its fields in camelCase. */
export interface StructValue {
  stringValue?: string;
}

export interface NodeMessage {
  id: string;
  cluster?: string;
  metadata?: { fields: Record<string, StructValue> };
  user_agent_name?: string;
  user_agent_version?: string;
}

export interface DiscoveryRequest {
  version_info: string;
  node?: NodeMessage;
  resource_names: string[];
  type_url: string;
  response_nonce: string;
  error_detail?: { code: number; message: string; details?: AnyMessage[] } | null;
}

export interface DiscoveryResponse {
  version_info: string;
  resources: AnyMessage[];
  canary?: boolean;
  type_url: string;
  nonce: string;
}
