package io.coord;

import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import java.security.GeneralSecurityException;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLException;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import javax.net.ssl.TrustManager;
import javax.net.ssl.X509ExtendedTrustManager;
import org.apache.zookeeper.client.ZKClientConfig;
import org.apache.zookeeper.common.ClientX509Util;
import org.apache.zookeeper.common.X509Exception;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Finds out whether a TLS mismatch is why the first session does not come. ZooKeeper's client
 * never says: a failed handshake, or a plaintext request to a TLS port, only makes it close the
 * socket and try again until the connection timeout. So when the first session is slow,
 * {@link CoordClient#connect} opens one short diagnostic connection per host:
 * <ul>
 *   <li>with TLS configured, a handshake with the same trust and key material and the same
 *       hostname rule as the client; a handshake error (untrusted or mismatched certificate, a
 *       required client certificate missing, a peer that does not speak TLS) is the answer,
 *       put in words by {@link HandshakeFailure}; for a certificate for another host, a second,
 *       trust-nothing look names whom it is for, if the deadline leaves time;</li>
 *   <li>with plaintext, a TLS ClientHello: a port that answers with a certificate speaks TLS, so
 *       the plaintext client can never get in. The probe aborts right after seeing the
 *       certificate and trusts nothing.</li>
 * </ul>
 * Unreachable hosts and timeouts prove nothing and are reported as such.
 */
final class TlsProbe {
    private static final Logger LOG = LoggerFactory.getLogger(TlsProbe.class);
    /** How long to wait, after the handshake, for the server to reject our client certificate (TLS 1.3 does that late). */
    private static final int LATE_ALERT_WAIT_MS = 300;

    enum Verdict {
        /** The port and the client disagree about TLS; the connection can never succeed. */
        MISMATCH,
        /** The port and the client agree (TLS handshake completed, or a plaintext port for a plaintext client). */
        CONSISTENT,
        /** No answer: not reachable, or too slow. Says nothing about TLS. */
        UNKNOWN
    }

    record Result(String hostPort, Verdict verdict, String detail, Exception cause) {
    }

    private TlsProbe() {
    }

    /**
     * Probes every host of {@code settings}' connect string, all before {@code deadlineNanos}
     * (each gets what is left, at least 100 ms: a cold JVM's first handshake on a busy machine
     * can take most of a second).
     */
    static List<Result> probeAll(CoordSettings settings, long deadlineNanos) {
        List<Result> results = new ArrayList<>();
        for (String hostPort : ConnectString.parse(settings.connectString()).hosts()) {
            int timeoutMs = (int) Math.max(100, TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) - 100);
            long start = System.nanoTime();
            Result r = settings.tls() == null ? probePlaintext(hostPort, timeoutMs) : probeTls(settings, hostPort, timeoutMs, deadlineNanos);
            LOG.debug("TLS probe of {} (timeout {} ms) took {} ms: {} {}", hostPort, timeoutMs,
                    TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start), r.verdict(), r.detail());
            results.add(r);
        }
        return results;
    }

    /**
     * The probing schedule while {@link CoordClient#connect} waits for its first session: first
     * after a quarter of the connection timeout (at most 500 ms, longer than a healthy local
     * connect takes), then at most once a second. Once every host shows a mismatch the connect
     * can never succeed, so it fails at once instead of waiting out the timeout.
     */
    static final class Diagnosis {
        private final CoordSettings settings;
        private final long deadline;
        private long nextProbeAt;
        private List<Result> last = List.of();

        Diagnosis(CoordSettings settings, long startNanos, long deadlineNanos) {
            this.settings = settings;
            this.deadline = deadlineNanos;
            this.nextProbeAt = startNanos + Math.min(TimeUnit.MILLISECONDS.toNanos(500), (deadlineNanos - startNanos) / 4);
        }

        /** Probes if it is time; throws {@link TlsException} when every host shows a mismatch. */
        void probeIfDue() {
            if (System.nanoTime() - nextProbeAt < 0) {
                return;
            }
            last = probeAll(settings, deadline);
            nextProbeAt = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
            if (!last.isEmpty() && last.stream().allMatch(r -> r.verdict() == Verdict.MISMATCH)) {
                throw failure("could not connect to ZooKeeper at " + settings.connectString(), last.get(0));
            }
        }

        /** At the deadline: a mismatch seen on any host is the best explanation there is. */
        void throwIfAnyMismatch(String what) {
            for (Result r : last) {
                if (r.verdict() == Verdict.MISMATCH) {
                    throw failure(what, r);
                }
            }
        }

        String summary() {
            return last.isEmpty() ? "" : " (diagnostic probe: " + last.stream().map(r -> r.hostPort() + " " + r.detail())
                    .collect(Collectors.joining("; ")) + ")";
        }

        private static TlsException failure(String what, Result mismatch) {
            return new TlsException(what + ": TLS mismatch with " + mismatch.hostPort() + ": " + mismatch.detail(), mismatch.cause());
        }
    }

    /** A handshake as the client would make it, with {@code timeoutMs} for each step; {@code deadlineNanos} bounds the extras. */
    static Result probeTls(CoordSettings settings, String hostPort, int timeoutMs, long deadlineNanos) {
        TlsSettings tls = settings.tls();
        ZKClientConfig config = CuratorFactory.clientConfig(settings);
        SSLContext context;
        try (ClientX509Util x509 = new ClientX509Util()) {
            context = x509.createSSLContextAndOptions(config).getSSLContext();
        } catch (X509Exception.SSLContextException e) {
            return new Result(hostPort, Verdict.MISMATCH, "the TLS settings cannot be loaded (" + HandshakeFailure.describe(e)
                    + "); check the keystore/truststore files, their passwords and type " + tls.storeType(), e);
        }
        Result r = handshake(hostPort, timeoutMs, context, tls.hostnameVerification(), null);
        if (r.verdict() == Verdict.MISMATCH && r.cause() != null && HandshakeFailure.isHostnameMismatch(r.cause())) {
            // The JDK names the host but not the certificate; a second look names whom it is for,
            // if there is time left: the verdict is known, the connect must not fail later for it.
            long leftMs = TimeUnit.NANOSECONDS.toMillis(deadlineNanos - System.nanoTime()) - 50;
            Presented p = leftMs < 50 ? null : presentedCertificate(hostPort, (int) leftMs);
            if (p != null && p.certificate() != null) {
                return new Result(hostPort, r.verdict(), r.detail() + "; the server's certificate is for "
                        + HandshakeFailure.names(p.certificate()), r.cause());
            }
        }
        return r;
    }

    static Result probePlaintext(String hostPort, int timeoutMs) {
        Presented p = presentedCertificate(hostPort, timeoutMs);
        if (p.certificate() != null) {
            return new Result(hostPort, Verdict.MISMATCH, "the port speaks TLS (it presented a certificate for "
                    + p.certificate().getSubjectX500Principal().getName() + ") but this client is configured for plaintext;"
                    + " set CoordSettings.tls(...) or use the server's plaintext clientPort", null);
        }
        Result r = p.handshake();
        return r.verdict() == Verdict.UNKNOWN ? r : new Result(hostPort, Verdict.CONSISTENT, "the port does not speak TLS", null);
    }

    /** What a trust-nothing handshake saw: the server's certificate, if it showed one, and how the handshake ended. */
    private record Presented(X509Certificate certificate, Result handshake) {
    }

    /** Starts a TLS handshake that trusts nothing, only to see the certificate the port presents. */
    private static Presented presentedCertificate(String hostPort, int timeoutMs) {
        AtomicReference<X509Certificate> presented = new AtomicReference<>();
        SSLContext context;
        try {
            context = SSLContext.getInstance("TLS");
            context.init(null, new TrustManager[] {new CertificateRecorder(presented)}, null);
        } catch (GeneralSecurityException e) {
            return new Presented(null, new Result(hostPort, Verdict.UNKNOWN, "this JVM cannot make a TLS probe: " + e, e));
        }
        Result r = handshake(hostPort, timeoutMs, context, false, presented);
        return new Presented(presented.get(), r);
    }

    private static Result handshake(String hostPort, int timeoutMs, SSLContext context, boolean verifyHostname,
                                    AtomicReference<X509Certificate> recorder) {
        int colon = hostPort.lastIndexOf(':');
        String host = hostPort.substring(0, colon);
        int port = Integer.parseInt(hostPort.substring(colon + 1));
        try (Socket raw = new Socket()) {
            try {
                raw.connect(new InetSocketAddress(host, port), timeoutMs);
                raw.setSoTimeout(timeoutMs);
            } catch (IOException e) {
                return new Result(hostPort, Verdict.UNKNOWN, "not reachable: " + HandshakeFailure.describe(e), e);
            }
            try (SSLSocket ssl = (SSLSocket) context.getSocketFactory().createSocket(raw, host, port, true)) {
                if (verifyHostname) {
                    SSLParameters params = ssl.getSSLParameters();
                    params.setEndpointIdentificationAlgorithm("HTTPS");
                    ssl.setSSLParameters(params);
                }
                ssl.startHandshake();
                return afterHandshake(hostPort, host, ssl);
            }
        } catch (SocketTimeoutException e) {
            return new Result(hostPort, Verdict.UNKNOWN, "no TLS answer within " + timeoutMs + " ms", e);
        } catch (SSLException | EOFException | SocketException e) {
            if (recorder != null && recorder.get() != null) {
                return new Result(hostPort, Verdict.MISMATCH, "the port speaks TLS", e);
            }
            return new Result(hostPort, Verdict.MISMATCH, HandshakeFailure.explain(e, host), e);
        } catch (IOException e) {
            return new Result(hostPort, Verdict.UNKNOWN, "probe failed: " + HandshakeFailure.describe(e), e);
        }
    }

    /**
     * In TLS 1.3 the server checks the client certificate after the client considers the
     * handshake done, so wait briefly for a late alert before calling the handshake good.
     */
    private static Result afterHandshake(String hostPort, String host, SSLSocket ssl) throws IOException {
        ssl.setSoTimeout(LATE_ALERT_WAIT_MS);
        try {
            InputStream in = ssl.getInputStream();
            if (in.read() < 0) {
                return new Result(hostPort, Verdict.MISMATCH, "the server closed the TLS connection right after the handshake"
                        + " (it probably refused this client's certificate)", null);
            }
        } catch (SocketTimeoutException quiet) {
            // nothing came back: the server accepted the handshake and waits for a request
        } catch (SSLException e) {
            return new Result(hostPort, Verdict.MISMATCH, HandshakeFailure.explain(e, host), e);
        }
        return new Result(hostPort, Verdict.CONSISTENT, "TLS handshake succeeded", null);
    }

    /** Trusts nothing: notes the first certificate the peer shows, then aborts the handshake. */
    private static final class CertificateRecorder extends X509ExtendedTrustManager {
        private final AtomicReference<X509Certificate> presented;

        CertificateRecorder(AtomicReference<X509Certificate> presented) {
            this.presented = presented;
        }

        private void record(X509Certificate[] chain) throws CertificateException {
            if (chain != null && chain.length > 0) {
                presented.compareAndSet(null, chain[0]);
            }
            throw new CertificateException("diagnostic probe: certificate seen, handshake aborted on purpose");
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            record(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            record(chain);
        }

        @Override
        public void checkServerTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            record(chain);
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
            throw new CertificateException("a probe is never a server");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, Socket socket) throws CertificateException {
            throw new CertificateException("a probe is never a server");
        }

        @Override
        public void checkClientTrusted(X509Certificate[] chain, String authType, SSLEngine engine) throws CertificateException {
            throw new CertificateException("a probe is never a server");
        }

        @Override
        public X509Certificate[] getAcceptedIssuers() {
            return new X509Certificate[0];
        }
    }
}
