package io.coord.chaos;

import io.coord.test.Awaits;
import io.coord.test.ForkedEnsemble;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Runs scenarios against one forked 3-server ensemble (ZooKeeper's own {@code QuorumPeerMain} in
 * child JVMs on loopback), one after the other, each in its own namespace, healing the ensemble
 * between them. Prints the seed first, then each scenario's {@code CHAOS} line and
 * {@code CHAOS-DETAIL} line.
 */
public final class ChaosSuite {
    /** Session timeout every worker requests (and must negotiate). */
    public static final Duration SESSION = Duration.ofSeconds(2);

    private ChaosSuite() {
    }

    /** What a scenario gets from the suite: its profile and fresh contexts on the shared ensemble. */
    public static final class Run {
        private final ForkedEnsemble ensemble;
        private final Profile profile;
        private final long seed;
        private final PrintWriter out;
        private final boolean controls;
        private final List<ChaosContext> contexts = new ArrayList<>();

        private Run(ForkedEnsemble ensemble, Profile profile, long seed, PrintWriter out, boolean controls) {
            this.ensemble = ensemble;
            this.profile = profile;
            this.seed = seed;
            this.out = out;
            this.controls = controls;
        }

        /** Whether the scenario runs its controls too (it must, unless the run switched them off). */
        public boolean controls() {
            return controls;
        }

        public Profile profile() {
            return profile;
        }

        public long seed() {
            return seed;
        }

        /** A new context named {@code name} (its result line's name); the suite closes it. */
        public ChaosContext context(String name) throws InterruptedException {
            heal(ensemble);
            ChaosContext c = new ChaosContext(name, ensemble, seed, profile, SESSION, out);
            contexts.add(c);
            return c;
        }

        /**
         * {@code r}, carrying its fault runner's notes when a fault was not applied, so the failure
         * message (and a CI log that keeps only its tail) says which fault and why.
         */
        private ChaosResult withFaultNotes(ChaosResult r) {
            if (r.faultsApplied() == r.faultsScheduled()) {
                return r;
            }
            List<String> notes = contexts.stream().filter(c -> c.name().equals(r.scenario()))
                    .flatMap(c -> c.faultNotes().stream()).toList();
            return notes.isEmpty() ? r : r.withDetail("fault-notes", "[" + String.join("; ", notes) + "]");
        }

        private void closeAll() {
            for (ChaosContext c : contexts) {
                c.close();
            }
        }

        /** {@code CHAOS-TIME <context> <s>} for each context taken, from its start until it was closed. */
        private void printTimes() {
            for (ChaosContext c : contexts) {
                out.printf("CHAOS-TIME %s %.1fs%n", c.name(), c.elapsed().toMillis() / 1e3);
            }
            contexts.clear();
        }
    }

    /**
     * Runs the scenarios {@code names} (all if empty), each with its controls, and returns every
     * result. Whatever it started is stopped before it returns or throws.
     */
    public static List<ChaosResult> run(List<String> names, Profile profile, long seed, PrintWriter out) throws InterruptedException {
        return run(names, profile, seed, out, true);
    }

    /**
     * As {@link #run(List, Profile, long, PrintWriter)}; {@code controls} false runs the scenarios
     * without their controls. CI's loaded second pass does that: it asks whether the safety checks
     * hold under load, and the first pass already showed that each control bites.
     */
    public static List<ChaosResult> run(List<String> names, Profile profile, long seed, PrintWriter out, boolean controls)
            throws InterruptedException {
        List<String> chosen = names.isEmpty() ? Scenarios.names() : names;
        for (String n : chosen) {
            Scenarios.entry(n); // fail on an unknown name before starting anything
        }
        out.println("CHAOS-SEED " + seed + " profile=" + profile.name() + (profile.volumeDriven() ? " volume-factor=" + profile.volumeFactor() : "")
                + " per-scenario=" + profile.perScenario().toSeconds() + "s"
                + " scenarios=" + String.join(",", chosen) + (controls ? "" : " controls=off"));
        List<ChaosResult> results = new ArrayList<>();
        // meshed: server-to-server links through loopback proxies, so one member can be cut off (F9)
        try (ForkedEnsemble ensemble = ForkedEnsemble.start(3, true)) {
            for (String n : chosen) {
                Run run = new Run(ensemble, profile, seed, out, controls);
                long t0 = System.nanoTime();
                try {
                    Scenario scenario = Scenarios.entry(n).controller().get();
                    List<ChaosResult> own = scenario.run(run);
                    for (ChaosResult result : own) {
                        ChaosResult r = run.withFaultNotes(result);
                        out.println(r.line());
                        out.println(r.detailLine());
                        results.add(r);
                    }
                    for (String control : controls ? scenario.controls() : List.<String>of()) {
                        if (own.stream().noneMatch(r -> r.scenario().equals(control))) {
                            ChaosResult r = ChaosResult.error(control, new IllegalStateException(n + " returned no result for its control"));
                            out.println(r.line());
                            out.println(r.detailLine());
                            results.add(r);
                        }
                    }
                } catch (RuntimeException | AssertionError e) {
                    // One broken scenario must not hide the others' results: it fails as an error.
                    ChaosResult r = ChaosResult.error(n, e);
                    out.println(r.line());
                    out.println(r.detailLine());
                    e.printStackTrace(out);
                    results.add(r);
                } finally {
                    run.closeAll();
                }
                run.printTimes();
                out.printf("CHAOS-TIME %s total %.1fs%n", n, (System.nanoTime() - t0) / 1e9);
            }
            results.add(AclAudit.run(ensemble, out)); // every node against the ACL policy, every log for the secret
        }
        return results;
    }

    /** Restarts any killed member and waits until all three serve and a leader is elected. */
    static void heal(ForkedEnsemble ensemble) {
        for (int i = 0; i < ensemble.size(); i++) {
            if (ensemble.process(i) == null) {
                ensemble.restart(i);
            }
        }
        ensemble.awaitLeader(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
        for (int i = 0; i < ensemble.size(); i++) {
            final int m = i;
            Awaits.until("member " + m + " serving", Duration.ofSeconds(60), () -> ensemble.mode(m).isPresent());
        }
    }
}
