#!/usr/bin/env node
// CDK entry point (cdk.json runs it with tsx); everything it does lives in lib/app.ts, where tests reach it.
import { buildApp } from '../lib/app.js';

buildApp();
