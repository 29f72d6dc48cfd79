#!/usr/bin/env node
// CDK entry point (cdk.json runs it with tsx); everything it does lives in lib/app.ts, where tests reach it.
import { buildApp, isConfigurationError } from '../lib/app.js';

try {
  buildApp();
} catch (error) {
  if (!isConfigurationError(error)) {
    throw error;
  }
  // A value the user chose: one line naming the key, no stack trace.
  process.stderr.write(`Invalid CDK context: ${error.message}\n`);
  process.exit(1);
}
