package io.coord.cli.doctor;

import io.coord.CoordClient;
import io.coord.CoordException;
import io.coord.NotAuthorizedException;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import org.apache.zookeeper.KeeperException;

/**
 * One read-only pass over a namespace: every check in turn, each reading through the recipes' own
 * inspection APIs, and the findings, worst first. Prints nothing; {@code coord doctor} and the web
 * console show the same list.
 *
 * <pre>{@code
 * List<Finding> findings = Doctor.of(client, DoctorOptions.defaults()).run();
 * }</pre>
 *
 * A check that cannot run (a subtree this client may not read, a node that is not what its recipe
 * writes) becomes a WARNING finding naming the check and why, and the pass goes on.
 */
public final class Doctor {
    private final CoordClient client;
    private final DoctorOptions options;
    private final List<Check> checks;

    private Doctor(CoordClient client, DoctorOptions options, List<Check> checks) {
        this.client = client;
        this.options = options;
        this.checks = checks;
    }

    /** A doctor reading through {@code client} (its namespace is the one examined) with these thresholds. */
    public static Doctor of(CoordClient client, DoctorOptions options) {
        Objects.requireNonNull(client, "client");
        Objects.requireNonNull(options, "options");
        return new Doctor(client, options, List.of(new ServerCheck(), new SessionTimeoutCheck(), new LockParentCheck(),
                new LockTwoHoldersCheck(), new LockDeadHolderCheck(), new QueueCheck(), new ElectionCheck(), new BarrierCheck(),
                new ConfigCheck(), new MembershipCheck(), new AclCheck()));
    }

    /**
     * Runs every check once and returns the findings, most severe first (a stable order otherwise).
     *
     * @throws CoordException (one line) when there is nothing to examine: the namespace does not
     *                        exist, or this client may not READ it; or when the calling thread is
     *                        interrupted (its interrupt flag is set again)
     */
    public List<Finding> run() {
        try {
            return runChecks();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new CoordException("coord doctor was interrupted before it finished its pass", e);
        }
    }

    private List<Finding> runChecks() throws InterruptedException {
        preflight();
        Scan scan = new Scan(client, options, Instant.now());
        List<Finding> findings = new ArrayList<>();
        for (Check check : checks) {
            try {
                check.run(scan, findings);
            } catch (CoordException | IllegalArgumentException | IllegalStateException e) {
                findings.add(new Finding(Finding.Severity.WARNING, "doctor.check-failed", "/",
                        "the check " + check.name() + " could not run: " + oneLine(e),
                        "fix what the message names (permissions, a node not written by its recipe), then run coord doctor again"));
            }
        }
        findings.sort(Comparator.comparing(Finding::severity).reversed());
        return List.copyOf(findings);
    }

    /**
     * Before any namespaced read: Curator creates a missing namespace node on first use, and the
     * doctor must not write, nor report a typo'd namespace as clean.
     */
    private void preflight() throws InterruptedException {
        String ns = client.settings().namespace();
        String root = ns == null || ns.isEmpty() ? "/" : "/" + ns;
        var raw = client.curator().usingNamespace(null);
        try {
            if (raw.checkExists().forPath(root) == null) {
                throw new CoordException("namespace '" + ns + "' does not exist on " + client.settings().connectString()
                        + " (nothing to examine; check the --namespace value)");
            }
            raw.getChildren().forPath(root);
        } catch (KeeperException.NoAuthException e) {
            throw new NotAuthorizedException("no READ permission on " + root + " for " + identities()
                    + " (give credentials with --user/--password, or ask for READ on it)", e);
        } catch (CoordException | InterruptedException e) {
            throw e;
        } catch (Exception e) {
            throw new CoordException("cannot read " + root + ": " + oneLine(e), e);
        }
    }

    private String identities() {
        return client.settings().credentials().isEmpty() ? "anonymous"
                : String.join(", ", client.settings().credentials().stream().map(c -> c.principal()).toList());
    }

    static String oneLine(Throwable e) {
        String m = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
        return m.replaceAll("\\s*\\R\\s*", " ");
    }
}
