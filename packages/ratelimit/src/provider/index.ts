import type { Logger } from '../log.js';
import { FileConfigProvider, type FileProviderOptions } from './file.js';
import type { ConfigProvider } from './provider.js';
import { type XdsProviderSettings, XdsSotwProvider } from './xds/sotw-provider.js';

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

/** The config source CONFIG_TYPE selects. */
export function createConfigProvider(config: ConfigSettings, log: Logger): ConfigProvider {
  return config.type === 'GRPC_XDS_SOTW'
    ? new XdsSotwProvider(config.xds, {
        logger: log,
        waitForFirstConfig: !config.forceStartWithoutInitialConfig,
      })
    : new FileConfigProvider(config.file, log);
}
