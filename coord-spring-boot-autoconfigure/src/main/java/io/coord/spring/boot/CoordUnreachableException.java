package io.coord.spring.boot;

import io.coord.CoordTimeoutException;
import java.time.Duration;

/**
 * The {@code CoordClient} bean got no session from the ensemble within the connection timeout,
 * and no {@code coord.config.snapshot-dir} lets the application start without one. Analysed by
 * {@link CoordUnreachableFailureAnalyzer}, naming the ensemble and the properties to set.
 */
final class CoordUnreachableException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final String connectString;

    CoordUnreachableException(String connectString, Duration connectionTimeout, CoordTimeoutException cause) {
        super("ZooKeeper at " + connectString + " (coord.connect-string) gave no session within coord.connection-timeout ("
                + connectionTimeout + "): " + cause.getMessage(), cause);
        this.connectString = connectString;
    }

    String connectString() {
        return connectString;
    }
}
