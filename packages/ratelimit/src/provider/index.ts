import type { Logger } from '../log.js';
import { FileConfigProvider, type FileProviderOptions } from './file.js';
import type { ConfigProvider } from './provider.js';
import type { XdsProviderSettings } from './xds/sotw-provider.js';

/** CONFIG_TYPE and the settings of the config sources and of the config they load. */
export interface ConfigSettings {
  readonly type: 'FILE' | 'GRPC_XDS_SOTW';
  readonly forceStartWithoutInitialConfig: boolean;
  readonly mergeDomainConfig: boolean;
  readonly healthyWithAtLeastOneConfigLoaded: boolean;
  /** RUNTIME_*: the FILE source. */
  readonly file: FileProviderOptions;
  /** CONFIG_GRPC_XDS_* and XDS_CLIENT_*: the GRPC_XDS_SOTW source. */
  readonly xds: XdsProviderSettings;
}

/**
 * The config source CONFIG_TYPE selects. The xDS client (its protos and gRPC stubs, about 200 ms of
 * a start) is loaded only when it is the source.
 */
export async function createConfigProvider(config: ConfigSettings, log: Logger): Promise<ConfigProvider> {
  if (config.type !== 'GRPC_XDS_SOTW') return new FileConfigProvider(config.file, log);
  const { XdsSotwProvider } = await import('./xds/sotw-provider.js');
  return new XdsSotwProvider(config.xds, {
    logger: log,
    waitForFirstConfig: !config.forceStartWithoutInitialConfig,
  });
}
