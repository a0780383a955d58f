package io.coord;

import io.coord.internal.Zk;
import java.nio.file.Path;
import java.time.Duration;
import org.apache.zookeeper.ZooDefs.Perms;

/**
 * Run by {@link TlsIT#noSecretAppearsInAnyLogLineEvenAtDebug} in a child JVM that logs at DEBUG:
 * exercises every path that handles a secret (digest over TLS, digest in clear, a wrong
 * truststore, a wrong password against an auth check, settings printed the way an application
 * would log them) so the parent can grep the output.
 *
 * <p>Arguments: tlsConnect plainConnect keyStore keyStorePw trustStore trustStorePw otherTrustStore digestPw.
 */
final class SecretLogProbe {
    static final String DONE = "secret-log-probe: done";

    private SecretLogProbe() {
    }

    public static void main(String[] args) throws Exception {
        String tlsConnect = args[0];
        String plainConnect = args[1];
        TlsSettings tls = TlsSettings.mutual(Path.of(args[2]), args[3], Path.of(args[4]), args[5]);
        TlsSettings wrongTrust = TlsSettings.mutual(Path.of(args[2]), args[3], Path.of(args[6]), args[5]);
        Credentials admin = Credentials.digest("probe-admin", args[7]);
        AclPolicy policy = AclPolicy.builder()
                .rule("/guarded", AclEntry.digest(admin.identity(), admin.secret(), Perms.ALL))
                .build();
        CoordSettings good = CoordSettings.builder().connectString(tlsConnect).namespace("secrets")
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(30))
                .credentials(admin).tls(tls).aclPolicy(policy).build();
        System.err.println("settings: " + good + " credentials: " + admin + " tls: " + tls);

        try (CoordClient c = CoordClient.connect(good)) {
            Zk.of(c).call(CoordPath.of("/guarded/canary"),
                    () -> c.curator().create().creatingParentsIfNeeded().forPath("/guarded/canary", new byte[] {1}));
            Zk.of(c).call(CoordPath.of("/guarded/canary"), () -> c.curator().getData().forPath("/guarded/canary"));
        }
        try (CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(plainConnect).namespace("secrets")
                .sessionTimeout(Duration.ofSeconds(3)).connectionTimeout(Duration.ofSeconds(30)).credentials(admin).build())) {
            System.err.println("connected in clear: " + c);
        }
        try (CoordClient c = CoordClient.connect(good.toBuilder().tls(wrongTrust).build())) {
            throw new AssertionError("connected despite the wrong truststore: " + c);
        } catch (TlsException expected) {
            System.err.println("expected: " + expected);
        }
        // Contains the real password, so logging the wrong one would be caught too.
        Credentials wrong = Credentials.digest("probe-admin", args[7] + "-wrong");
        try (CoordClient c = CoordClient.connect(CoordSettings.builder().connectString(tlsConnect).namespace("secrets")
                .sessionTimeout(Duration.ofSeconds(10)).connectionTimeout(Duration.ofSeconds(30)).credentials(wrong).tls(tls).aclPolicy(policy)
                .authCheckPath(CoordPath.of("/guarded/canary")).build())) {
            throw new AssertionError("connected despite the wrong password: " + c);
        } catch (NotAuthorizedException expected) {
            System.err.println("expected: " + expected);
        }
        System.err.println(DONE);
    }
}
