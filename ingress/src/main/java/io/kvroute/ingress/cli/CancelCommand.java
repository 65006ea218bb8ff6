package io.kvroute.ingress.cli;

import io.kvroute.ingress.client.ClientConfig;
import io.kvroute.ingress.client.KvrouteClient;
import io.kvroute.ingress.client.SubmitException;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code kvroute cancel ID [--reason TEXT]}: writes a cancel event for the request to
 * {@code <prefix>.cancellations} and exits once the broker has it. The request's result becomes
 * CANCELLED unless it finished first. Exit status 0 when written, 1 when the write failed.
 */
@Command(name = "cancel", mixinStandardHelpOptions = true, description = "Cancel a queued or running request.")
public final class CancelCommand implements Callable<Integer> {

    @Mixin
    ConnectionOptions connection = new ConnectionOptions();

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "ID", description = "Id of the request to cancel.")
    String requestId;

    @Option(names = "--reason", paramLabel = "TEXT", description = "Why, kept with the cancel event.")
    String reason;

    @Override
    public Integer call() {
        ClientConfig config = connection.clientConfig(Map.of());
        try (KvrouteClient client = KvrouteClient.create(config)) {
            client.cancel(requestId, reason);
        } catch (SubmitException e) {
            spec.commandLine().getErr().println("could not cancel " + requestId + ": " + e.getCause());
            return 1;
        }
        spec.commandLine().getOut().println("cancel requested for " + requestId);
        return 0;
    }
}
