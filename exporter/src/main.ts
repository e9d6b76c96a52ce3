// `npm run exporter` and the image's entry point: the configuration from the environment
// (ACKTRAIL_CONFIG and the rest; exit 2 naming a bad key), then `acktrail serve`.
import { configOrExit } from './cli/load.js';
import { serve } from './cli/serve.js';

await serve(configOrExit());
