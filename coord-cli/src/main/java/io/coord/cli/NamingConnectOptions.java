package io.coord.cli;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import java.time.Duration;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/** Where the naming commands ({@code ids}, {@code services}) connect: a picocli mixin. */
final class NamingConnectOptions {
    @Option(names = {"-c", "--connect"}, required = true, paramLabel = "HOST:PORT[,...]", description = "the ensemble's connect string")
    String connect;

    @Option(names = "--namespace", paramLabel = "NS", description = "Curator namespace the application uses (no leading '/')")
    String namespace;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5s",
            description = "how long to wait for a session (default: ${DEFAULT-VALUE})")
    Duration connectTimeout;

    CoordClient connect(CommandSpec spec) throws InterruptedException {
        CoordSettings settings;
        try {
            CoordSettings.Builder b = CoordSettings.builder().connectString(connect).connectionTimeout(connectTimeout);
            if (namespace != null) {
                b.namespace(namespace);
            }
            settings = b.build();
        } catch (ConfigurationException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
        return CoordClient.connect(settings);
    }
}
