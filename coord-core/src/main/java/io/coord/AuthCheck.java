package io.coord;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.ZooKeeper;

/**
 * Confirms, right after the first session, that the server accepted this client's
 * authentication. Needed because a rejection comes <em>after</em> the session: ZooKeeper answers
 * the connect request first, then an unknown auth scheme with {@code AUTHFAILED} (the handle is
 * dead from then on, yet Curator still reports CONNECTED), and a server that enforces SASL
 * ({@code enforce.auth.schemes=sasl}) closes the session with {@code -124} on the first request.
 * Curator retries neither and reports neither at connect time.
 *
 * <p>The check is one {@code exists("/")} on the raw handle, for a client Coord built sent as the
 * handle's first request ({@link AuthProbe}: a server enforcing SASL answers only the first request
 * with {@code -124}). The server handles a connection's
 * packets in order, so its answer comes after the answers to the auth packets: {@code AUTHFAILED}
 * or {@code SESSIONCLOSEDREQUIRESASLAUTH} mean rejected; anything the ACL or data can explain
 * ({@code OK}, {@code NONODE}, {@code NOAUTH}) means accepted.
 */
final class AuthCheck {
    private AuthCheck() {
    }

    /** Returns when the server has accepted this client; throws {@link AuthenticationException} if it refused it. */
    static void confirmAccepted(CuratorFramework curator, AuthProbe probe, String ensemble, String principals, long deadlineNanos)
            throws InterruptedException {
        while (true) {
            ZooKeeper zk = handle(curator);
            throwIfRejected(zk, ensemble, principals);
            // The handle's first request when we built the client (see AuthProbe); else one now.
            CompletableFuture<Integer> answer = probe == null ? null : probe.answerFor(zk);
            if (answer == null) {
                CompletableFuture<Integer> own = new CompletableFuture<>();
                zk.exists("/", false, (rc, path, ctx, stat) -> own.complete(rc), null);
                answer = own;
            }
            Code code = Code.get(await(answer, ensemble, deadlineNanos));
            switch (code) {
                case OK, NONODE, NOAUTH -> {
                    return;
                }
                case AUTHFAILED, SESSIONCLOSEDREQUIRESASLAUTH -> throw rejected(code, ensemble, principals);
                case CONNECTIONLOSS, SESSIONEXPIRED, OPERATIONTIMEOUT, REQUESTTIMEOUT -> {
                    long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime());
                    if (leftMs <= 0 || !curator.blockUntilConnected((int) leftMs, TimeUnit.MILLISECONDS)) {
                        throw new CoordTimeoutException("connected to ZooKeeper at " + ensemble
                                + " but lost the connection before the server confirmed the authentication of " + principals);
                    }
                }
                default -> {
                    // Some other error: whatever it is, it is not a refusal of our credentials.
                    return;
                }
            }
        }
    }

    /** Fails if the handle already knows the server refused it (an AUTHFAILED reply or a failed SASL login). */
    static void throwIfRejected(ZooKeeper zk, String ensemble, String principals) {
        if (zk != null && zk.getState() == ZooKeeper.States.AUTH_FAILED) {
            throw rejected(Code.AUTHFAILED, ensemble, principals);
        }
    }

    static ZooKeeper handle(CuratorFramework curator) {
        try {
            return curator.getZookeeperClient().getZooKeeper();
        } catch (Exception e) {
            throw new ConnectionLostException("no ZooKeeper handle to check authentication with", e);
        }
    }

    private static int await(CompletableFuture<Integer> answer, String ensemble, long deadlineNanos) throws InterruptedException {
        try {
            return answer.get(Math.max(0, deadlineNanos - System.nanoTime()), TimeUnit.NANOSECONDS);
        } catch (TimeoutException e) {
            throw new CoordTimeoutException("ZooKeeper at " + ensemble + " did not confirm this client's authentication"
                    + " before the connection timeout", e);
        } catch (ExecutionException e) {
            throw new CoordException("checking authentication with ZooKeeper at " + ensemble + " failed", e.getCause());
        }
    }

    static AuthenticationException rejected(Code code, String ensemble, String principals) {
        if (code == Code.SESSIONCLOSEDREQUIRESASLAUTH) {
            return new AuthenticationException("ZooKeeper at " + ensemble + " closed the session (SESSIONCLOSEDREQUIRESASLAUTH, -124):"
                    + " it enforces authentication with a scheme this client did not complete (enforce.auth.enabled /"
                    + " enforce.auth.schemes, typically sasl) and this client presented " + principals
                    + "; configure a JAAS 'Client' login for ZooKeeper SASL. Not retried");
        }
        return new AuthenticationException("ZooKeeper at " + ensemble + " rejected the authentication of " + principals
                + " (AUTHFAILED): it has no provider for that scheme, or its provider refused the credentials,"
                + " and it closed the connection. Not retried");
    }
}
