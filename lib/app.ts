import { App, type AppProps, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { readReceiverContext } from './context.js';
import { ReceiverStack } from './receiver-stack.js';

/**
 * Builds the CDK app: one {@link ReceiverStack} configured from CDK context, checked by cdk-nag's
 * AWS Solutions rules. The stack is environment-agnostic (no account or region, no lookups), so
 * synthesis needs no AWS credentials.
 * @param props passed to `App`; tests give `context` and `outdir` here, the CLI gives them by
 *   environment
 */
export function buildApp(props: AppProps = {}): App {
  const app = new App(props);
  const { stackName, props: stackProps } = readReceiverContext(app.node);
  new ReceiverStack(app, stackName, { ...stackProps, stackName });
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return app;
}
