import { SettingsError } from '../errors.js';
import type { Logger } from '../log.js';
import type { Settings } from '../settings.js';
import { FileConfigProvider } from './file.js';
import type { ConfigProvider } from './provider.js';

/** The config source CONFIG_TYPE selects. */
export function createConfigProvider(settings: Settings, log: Logger): ConfigProvider {
  if (settings.config.type === 'GRPC_XDS_SOTW') {
    // The xDS provider is built separately (src/provider/xds); until it is wired in, say so.
    throw new SettingsError(
      'CONFIG_TYPE',
      'GRPC_XDS_SOTW is not available in this build yet; use CONFIG_TYPE=FILE or pass a provider to startServer',
    );
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
