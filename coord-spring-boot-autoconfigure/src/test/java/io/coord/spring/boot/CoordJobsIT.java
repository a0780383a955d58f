package io.coord.spring.boot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.coord.ConfigurationException;
import io.coord.CoordClient;
import io.coord.FencingToken;
import io.coord.LockLostException;
import io.coord.test.Awaits;
import io.coord.test.Faults;
import io.coord.test.ZooKeeperExtension;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Predicate;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.scheduling.annotation.EnableScheduling;
import org.springframework.scheduling.annotation.Scheduled;

/**
 * {@code @LeaderOnly} and {@code @CoordLocked} scheduled jobs in real application contexts (the real
 * auto-configuration, Spring's real {@code @Scheduled}) against a real ZooKeeper. Several contexts
 * on one ensemble stand for several instances of one application; each has its own client, so its
 * own session.
 */
class CoordJobsIT {
    @RegisterExtension
    static final ZooKeeperExtension zk = ZooKeeperExtension.single();

    private static final Duration BOUND = Duration.ofSeconds(30);

    /** One run of a job as the job saw it: which instance, its token, when it started and ended. */
    record RunRecord(String node, FencingToken token, long startNanos, long endNanos) {
        boolean overlaps(RunRecord o) {
            return startNanos < o.endNanos && o.startNanos < endNanos;
        }
    }

    static final List<RunRecord> RUNS = new CopyOnWriteArrayList<>();
    static final List<String> EVENTS = new CopyOnWriteArrayList<>();
    static final Map<String, FencingToken> STARTED = new ConcurrentHashMap<>();

    @BeforeEach
    void clear() {
        RUNS.clear();
        EVENTS.clear();
        STARTED.clear();
    }

    private ApplicationContextRunner instance(String node) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(CoordAutoConfiguration.class, CoordJobsAutoConfiguration.class))
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withPropertyValues("test.node=" + node, "coord.connect-string=" + zk.connectString(),
                        "coord.namespace=" + zk.namespace(), "coord.session-timeout=4s",
                        "coord.connection-timeout=" + Awaits.scaled(Duration.ofSeconds(10)).toMillis() + "ms");
    }

    @Test
    void aLeaderOnlyJobRunsOnTheLeaderOnlyAndMovesWhenTheLeaderStops() {
        instance("a").withUserConfiguration(LeaderJobConfig.class).run(a -> instance("b").withUserConfiguration(LeaderJobConfig.class).run(b -> {
            assertThat(a).hasNotFailed();
            assertThat(b).hasNotFailed();
            Awaits.until("10 runs of the leader-only job", BOUND, () -> RUNS.size() >= 10);
            String leader = RUNS.get(0).node();
            String other = leader.equals("a") ? "b" : "a";
            AssertableApplicationContext leaderContext = leader.equals("a") ? a : b;
            AssertableApplicationContext otherContext = leader.equals("a") ? b : a;
            assertThat(RUNS).as("while both run, only the leader's job runs").allMatch(r -> r.node().equals(leader));
            Awaits.until("the other instance counted skipped runs", BOUND, () -> count(otherContext, "skipped") >= 3);
            assertThat(count(otherContext, "ran")).isZero();
            assertThat(count(leaderContext, "ran")).isGreaterThanOrEqualTo(10);

            leaderContext.close(); // resigns after its running job returned
            Awaits.until("3 runs on the other instance", BOUND, () -> RUNS.stream().filter(r -> r.node().equals(other)).count() >= 3);
            FencingToken oldEpoch = RUNS.get(0).token();
            assertThat(RUNS.stream().filter(r -> r.node().equals(leader))).allMatch(r -> r.token().equals(oldEpoch));
            assertThat(RUNS.stream().filter(r -> r.node().equals(other)))
                    .allMatch(r -> r.token().isNewerThan(oldEpoch), "the new leader's epoch is newer");
        }));
        assertNoOverlapBetweenInstances();
    }

    @Test
    void aLockGuardedJobRunsOnOneInstanceAtATimeWithIncreasingTokens() {
        instance("a").withUserConfiguration(LockJobConfig.class).run(a -> instance("b").withUserConfiguration(LockJobConfig.class).run(b -> {
            assertThat(a).hasNotFailed();
            assertThat(b).hasNotFailed();
            Awaits.until("3 runs on each instance", BOUND, () -> RUNS.stream().filter(r -> r.node().equals("a")).count() >= 3
                    && RUNS.stream().filter(r -> r.node().equals("b")).count() >= 3);
        }));
        List<RunRecord> runs = new ArrayList<>(RUNS);
        runs.sort(Comparator.comparingLong(RunRecord::startNanos));
        for (int i = 1; i < runs.size(); i++) {
            RunRecord before = runs.get(i - 1);
            RunRecord after = runs.get(i);
            assertThat(after.startNanos()).as("run %d starts after run %d ended: %s / %s", i, i - 1, before, after)
                    .isGreaterThanOrEqualTo(before.endNanos());
            assertThat(after.token().isNewerThan(before.token())).as("tokens strictly increase: %s then %s", before, after).isTrue();
        }
    }

    @Test
    void losingTheLeadershipInterruptsTheRunningJob() {
        lossInterruptsTheJob(LeaderLossConfig.class);
    }

    @Test
    void losingTheLockInterruptsTheRunningJob() {
        lossInterruptsTheJob(LockLossConfig.class);
    }

    private void lossInterruptsTheJob(Class<?> config) {
        instance("a").withUserConfiguration(config).run(context -> {
            assertThat(context).hasNotFailed();
            FencingToken first = Awaits.value("the job started", BOUND, () -> java.util.Optional.ofNullable(STARTED.get("run-1")));
            CoordClient client = context.getBean(CoordClient.class);
            long old = Faults.expireSession(client, zk.ensemble());
            Awaits.until("the job was interrupted and checkValid() threw", BOUND,
                    () -> EVENTS.contains("interrupted") && EVENTS.contains("checkValid threw LockLostException"));
            assertThat(EVENTS).doesNotContain("checkValid passed");
            Faults.awaitNewSession(client, old, BOUND);
            Awaits.until("counted as interrupted", BOUND, () -> count(context, "interrupted") == 1);
            // The application takes part again on its new session: the job runs again, newer token.
            FencingToken second = Awaits.value("a second run", BOUND, () -> java.util.Optional.ofNullable(STARTED.get("run-2")));
            assertThat(second.isNewerThan(first)).as("%s after %s", second, first).isTrue();
        });
    }

    @Test
    void theAccessorsOutsideAJobSayThereIsNoJob() {
        assertThatThrownBy(CoordJob::token).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("CoordJob.token()").hasMessageContaining("no @LeaderOnly or @CoordLocked job is running")
                .hasMessageContaining(Thread.currentThread().getName());
        assertThatThrownBy(CoordJob::checkValid).isInstanceOf(IllegalStateException.class).hasMessageContaining("CoordJob.checkValid()");
        assertThatThrownBy(CoordJob::lease).isInstanceOf(IllegalStateException.class).hasMessageContaining("CoordJob.lease()");
    }

    @Test
    void disabledJobsAreSkippedNeverRunUnguarded() {
        instance("a").withUserConfiguration(LeaderJobConfig.class).withPropertyValues("coord.jobs.enabled=false").run(context -> {
            assertThat(context).hasNotFailed();
            Awaits.until("skipped runs counted", BOUND, () -> count(context, "skipped") >= 3);
            assertThat(RUNS).isEmpty();
        });
    }

    @Test
    void aBadAnnotationFailsStartupNamingTheValue() {
        badAnnotation(BadWaitConfig.class, "@CoordLocked(waitFor = \"soon\") on " + BadWait.class.getName() + ".run()");
        badAnnotation(BadElectionConfig.class, "@LeaderOnly(election = \"a/b\") on " + BadElection.class.getName() + ".run()");
        badAnnotation(PrivateJobConfig.class, "@LeaderOnly on " + PrivateJob.class.getName() + ".run() needs a method that is not private");
        badAnnotation(BothConfig.class, "@LeaderOnly and @CoordLocked on " + Both.class.getName() + ".run() cannot be combined");
    }

    private void badAnnotation(Class<?> config, String message) {
        instance("a").withUserConfiguration(config).run(context -> {
            assertThat(context).hasFailed();
            Throwable cause = context.getStartupFailure();
            while (!(cause instanceof ConfigurationException) && cause.getCause() != null) {
                cause = cause.getCause();
            }
            assertThat(cause).isInstanceOf(ConfigurationException.class).hasMessageContaining(message);
        });
    }

    private static double count(AssertableApplicationContext context, String outcome) {
        Counter c = context.getBean(MeterRegistry.class).find(CoordJobs.RUNS).tag("outcome", outcome).counter();
        return c == null ? 0 : c.count();
    }

    private static void assertNoOverlapBetweenInstances() {
        List<RunRecord> runs = List.copyOf(RUNS);
        for (RunRecord r : runs) {
            Predicate<RunRecord> otherOverlapping = o -> !o.node().equals(r.node()) && o.overlaps(r);
            assertThat(runs.stream().filter(otherOverlapping)).as("runs of another instance overlapping %s", r).isEmpty();
        }
    }

    // ---- jobs ----------------------------------------------------------------------------------

    /** Records each run; a stop's interrupt ends the sleep and the run still records its end. */
    static class LeaderJob {
        private final String node;

        LeaderJob(String node) {
            this.node = node;
        }

        @Scheduled(fixedDelay = 100)
        @LeaderOnly(election = "nightly")
        void run() {
            record(node, 30);
        }
    }

    static class LockJob {
        private final String node;

        LockJob(String node) {
            this.node = node;
        }

        @Scheduled(fixedDelay = 100)
        @CoordLocked(lock = "report")
        void run() {
            record(node, 50);
        }
    }

    static void record(String node, long sleepMillis) {
        long start = System.nanoTime();
        FencingToken token = CoordJob.token();
        try {
            Thread.sleep(sleepMillis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } finally {
            RUNS.add(new RunRecord(node, token, start, System.nanoTime()));
        }
    }

    /** Sleeps until interrupted on its first run, then reports what it saw; later runs only say they started. */
    static class LossJob {
        void sleepUntilLost() {
            String run = "run-" + (STARTED.size() + 1);
            STARTED.put(run, CoordJob.token());
            if (!run.equals("run-1")) {
                return;
            }
            try {
                Thread.sleep(Awaits.scaled(Duration.ofSeconds(60)).toMillis());
                EVENTS.add("slept through");
            } catch (InterruptedException e) {
                EVENTS.add("interrupted");
                try {
                    CoordJob.checkValid();
                    EVENTS.add("checkValid passed");
                } catch (LockLostException lost) {
                    EVENTS.add("checkValid threw LockLostException");
                }
            }
        }
    }

    static class LeaderLossJob extends LossJob {
        @Scheduled(fixedDelay = 100)
        @LeaderOnly(election = "loss")
        void run() {
            sleepUntilLost();
        }
    }

    static class LockLossJob extends LossJob {
        @Scheduled(fixedDelay = 100)
        @CoordLocked(lock = "loss", waitFor = "1s")
        void run() {
            sleepUntilLost();
        }
    }

    static class BadWait {
        @CoordLocked(lock = "x", waitFor = "soon")
        void run() {
        }
    }

    static class BadElection {
        @LeaderOnly(election = "a/b")
        void run() {
        }
    }

    static class PrivateJob {
        @LeaderOnly(election = "x")
        private void run() {
        }
    }

    static class Both {
        @LeaderOnly(election = "x")
        @CoordLocked(lock = "x")
        void run() {
        }
    }

    // ---- configurations ------------------------------------------------------------------------

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class LeaderJobConfig {
        @Bean
        LeaderJob leaderJob(@Value("${test.node}") String node) {
            return new LeaderJob(node);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class LockJobConfig {
        @Bean
        LockJob lockJob(@Value("${test.node}") String node) {
            return new LockJob(node);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class LeaderLossConfig {
        @Bean
        LeaderLossJob leaderLossJob() {
            return new LeaderLossJob();
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableScheduling
    static class LockLossConfig {
        @Bean
        LockLossJob lockLossJob() {
            return new LockLossJob();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadWaitConfig {
        @Bean
        BadWait badWait() {
            return new BadWait();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadElectionConfig {
        @Bean
        BadElection badElection() {
            return new BadElection();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class PrivateJobConfig {
        @Bean
        PrivateJob privateJob() {
            return new PrivateJob();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BothConfig {
        @Bean
        Both both() {
            return new Both();
        }
    }
}
