import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks, ServerlessChecks } from 'cdk-nag';
import { InvalidConfigurationError } from './configuration-error.js';
import { readReceiverContext } from './context.js';
import { ReceiverStack } from './receiver-stack.js';

/**
 * Builds the CDK app: one {@link ReceiverStack} configured from CDK context, checked by cdk-nag's
 * AWS Solutions and Serverless rules. The stack is environment-agnostic (no account or region,
 * no lookups), so synthesis needs no AWS credentials.
 * @param props passed to `App`; tests give `context` and `outdir` here, the CLI gives them by
 *   environment
 * @throws InvalidConfigurationError (InvalidContextError, InvalidReceiverStackPropsError or
 *   InvalidWebhookReceiverPropsError) on a context value that cannot be used
 */
export function buildApp(props: AppProps = {}): App {
  const app = new App(props);
  const { stackName, props: stackProps } = readReceiverContext(app.node);
  new ReceiverStack(app, stackName, { ...stackProps, stackName });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app), new ServerlessChecks(app));
  return app;
}

/**
 * Whether `buildApp` refused a value the user gave (each message names the context key, which is
 * also the prop's name), as opposed to a bug: the CLI prints the former as one line.
 */
export function isConfigurationError(error: unknown): error is InvalidConfigurationError {
  return error instanceof InvalidConfigurationError;
}
