import type { Logger } from '../log.js';
import type { Settings } from '../settings.js';
import { FileConfigProvider } from './file.js';
import type { ConfigProvider } from './provider.js';
import { xdsProviderSettings } from './xds/from-settings.js';
import { XdsSotwProvider } from './xds/sotw-provider.js';

/** The config source CONFIG_TYPE selects. */
export function createConfigProvider(settings: Settings, log: Logger): ConfigProvider {
  if (settings.config.type === 'GRPC_XDS_SOTW') {
    return new XdsSotwProvider(xdsProviderSettings(settings.xds), { logger: log });
  }
  return new FileConfigProvider(
    {
      runtimeRoot: settings.config.runtimeRoot,
      runtimeSubdirectory: settings.config.runtimeSubdirectory,
      runtimeAppDirectory: settings.config.runtimeAppDirectory,
      ignoreDotFiles: settings.config.runtimeIgnoreDotFiles,
      watchRoot: settings.config.runtimeWatchRoot,
    },
    log,
  );
}
