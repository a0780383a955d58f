package io.coord.cli.doctor;

import io.coord.cli.doctor.Finding.Severity;
import java.time.Duration;
import java.util.List;

/**
 * The session timeout this client asked for against the one the server granted: a server clamps
 * it into [{@code minSessionTimeout}, {@code maxSessionTimeout}] (by default 2 and 20 ticks), so
 * an application may run with a timeout other than the one it was configured with.
 */
final class SessionTimeoutCheck implements Check {
    @Override
    public String name() {
        return "session.timeout";
    }

    @Override
    public void run(Scan scan, List<Finding> findings) {
        Duration requested = scan.client.requestedSessionTimeout();
        Duration negotiated = scan.client.negotiatedSessionTimeout();
        if (!requested.equals(negotiated)) {
            findings.add(new Finding(Severity.WARNING, "session.timeout", scan.client.settings().connectString(),
                    "requested session timeout " + requested.toMillis() + " ms, the server negotiated " + negotiated.toMillis() + " ms",
                    "clients asking for " + requested.toMillis() + " ms get " + negotiated.toMillis()
                            + " ms: change minSessionTimeout/maxSessionTimeout (tickTime) on the servers, or ask for a timeout inside them"));
        }
    }
}
