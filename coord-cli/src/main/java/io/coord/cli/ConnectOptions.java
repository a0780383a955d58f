package io.coord.cli;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.CoordSettings;
import io.coord.Credentials;
import java.time.Duration;
import java.util.Optional;
import java.util.function.UnaryOperator;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * Where a command connects and as whom: the options every ensemble command shares (a picocli
 * mixin), so that {@code -c}, {@code --namespace}, {@code --connect-timeout}, {@code --user} and
 * {@code --password} mean the same everywhere. A bad value is a usage error (exit code 2) naming
 * it, reported before anything connects.
 */
final class ConnectOptions {
    @Option(names = {"-c", "--connect"}, required = true, paramLabel = "HOST:PORT[,...]", description = "the ensemble's connect string")
    String connect;

    @Option(names = "--namespace", paramLabel = "NS", description = "the Curator namespace the application uses (no leading '/'; default: none)")
    String namespace;

    @Option(names = "--connect-timeout", paramLabel = "DURATION", converter = DurationConverter.class, defaultValue = "5s",
            description = "how long to wait for a session (default: ${DEFAULT-VALUE})")
    Duration connectTimeout;

    @Option(names = "--user", paramLabel = "USER", description = "digest user name (with --password)")
    String user;

    @Option(names = "--password", paramLabel = "PASSWORD", interactive = true, arity = "0..1",
            description = "digest password; given without a value, it is asked for on the terminal")
    char[] password;

    /** The digest credentials given, if any; a user without a password (or the reverse) is a usage error. */
    Optional<Credentials> credentials(CommandSpec spec) {
        if ((user == null) != (password == null)) {
            throw new ParameterException(spec.commandLine(), "--user and --password go together (digest authentication)");
        }
        return user == null ? Optional.empty() : Optional.of(Credentials.digest(user, new String(password)));
    }

    /** The settings these options describe, after {@code customize} added what the command needs. */
    CoordSettings settings(CommandSpec spec, UnaryOperator<CoordSettings.Builder> customize) {
        Optional<Credentials> credentials = credentials(spec);
        try {
            CoordSettings.Builder b = CoordSettings.builder().connectString(connect).connectionTimeout(connectTimeout);
            if (namespace != null) {
                b.namespace(namespace);
            }
            credentials.ifPresent(b::credentials);
            return customize.apply(b).build();
        } catch (ConfigurationException e) {
            throw new ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    CoordSettings settings(CommandSpec spec) {
        return settings(spec, b -> b);
    }

    /**
     * Connects with these options. Commands only look and leave, so the stall monitor is off: a
     * short-lived CLI client holds no lease that a stall could make uncertain.
     */
    CoordClient connect(CommandSpec spec) throws InterruptedException {
        return CoordClient.connect(settings(spec, b -> b.stallFraction(0)));
    }
}
