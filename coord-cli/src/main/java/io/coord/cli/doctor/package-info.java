/**
 * {@code coord doctor}: one read-only pass over a namespace that reports findings (see
 * {@link io.coord.cli.doctor.Finding}), shared with the web console.
 *
 * <pre>{@code
 * List<Finding> findings = Doctor.of(client, DoctorOptions.defaults()).run();   // worst first
 * }</pre>
 *
 * <p>{@link io.coord.cli.doctor.Doctor} runs each check once, in this order: the servers (mode and
 * {@code zk_outstanding_requests} from {@code mntr}, watchers per path from {@code wchp}; a word a
 * server does not allow is an INFO saying so), the session timeout requested against negotiated,
 * the locks under {@code /locks} ({@code Locks.list}: a parent re-created under its holder or
 * younger than {@link io.coord.cli.doctor.DoctorOptions#recentParent()}, one exclusive lock recorded
 * held by two sessions, waiters behind a holder whose session no server has a connection for, from
 * {@code cons}), the queues ({@code TaskQueue.stats()}: depth against the cap, old claims, dead
 * letters, undecodable nodes), the elections (an observer's {@code leader()} and {@code candidates()}:
 * no acting leader, the leader's id on two sessions), the barriers ({@code DoubleBarrier.status}:
 * broken, or waiting too long, with who is missing), the config keys ({@code ConfigStore}: a canary
 * in flight, instances on an old version), the groups (members whose node is recent; with
 * {@link io.coord.cli.doctor.DoctorOptions#flapWatch()}, flaps seen while watching), and an ACL audit
 * of every recipe tree against the client's {@code AclPolicy}.
 *
 * <p>It writes nothing: the namespace is checked to exist before any namespaced read (Curator would
 * create it), and a missing namespace or one the client may not READ is a one-line
 * {@link io.coord.CoordException} from {@code run()}. A check that fails on its own becomes a WARNING
 * finding ({@code doctor.check-failed}) and the others still run. Severities, thresholds and exit
 * codes are listed in docs/OPERATING.md ("coord doctor").
 */
package io.coord.cli.doctor;
