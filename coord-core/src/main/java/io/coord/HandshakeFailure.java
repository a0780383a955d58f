package io.coord;

import java.io.EOFException;
import java.net.SocketException;
import java.security.cert.CertPathBuilderException;
import java.security.cert.CertPathValidatorException;
import java.security.cert.CertPathValidatorException.BasicReason;
import java.security.cert.Certificate;
import java.security.cert.CertificateException;
import java.security.cert.CertificateExpiredException;
import java.security.cert.CertificateNotYetValidException;
import java.security.cert.CertificateParsingException;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Locale;
import javax.net.ssl.SSLPeerUnverifiedException;

/**
 * Turns a failed TLS handshake into a sentence an operator can act on: which side refused
 * which certificate, and why. The JDK says it only in the exception's class, its causes and
 * its wording; this reads all three, most specific first. A certificate this client refused
 * shows as a local {@link CertificateException} somewhere in the causes; a certificate the
 * server refused shows as an alert received from it.
 */
final class HandshakeFailure {
    private HandshakeFailure() {
    }

    /**
     * @param e    what the handshake threw
     * @param host the host name or address the client connected to, as in the connect string
     */
    static String explain(Exception e, String host) {
        String msg = describe(e);
        List<Throwable> causes = causes(e);
        CertPathValidatorException invalidPath = find(causes, CertPathValidatorException.class);
        if (find(causes, CertificateExpiredException.class) != null
                || invalidPath != null && invalidPath.getReason() == BasicReason.EXPIRED) {
            return "TLS handshake failed: the server's certificate has expired" + certificateAt(invalidPath)
                    + "; renew it on the server (" + details(causes) + ")";
        }
        if (find(causes, CertificateNotYetValidException.class) != null
                || invalidPath != null && invalidPath.getReason() == BasicReason.NOT_YET_VALID) {
            return "TLS handshake failed: the server's certificate is not valid yet" + certificateAt(invalidPath)
                    + "; check the clocks of server and client (" + details(causes) + ")";
        }
        if (isHostnameMismatch(causes)) {
            return "TLS handshake failed: the server's certificate does not match the host name '" + host + "'"
                    + " (hostname verification is on: the certificate's subject alternative names must contain"
                    + " this name or address; connect by a name it has, or reissue it) (" + details(causes) + ")";
        }
        if (find(causes, CertificateException.class) != null || find(causes, CertPathBuilderException.class) != null
                || invalidPath != null || msg.contains("PKIX")) {
            return "TLS handshake failed: the server's certificate is not trusted by the truststore (no chain from it"
                    + " to a certificate in the truststore, or that chain is invalid) (" + details(causes) + ")";
        }
        String lower = msg.toLowerCase(Locale.ROOT);
        if (lower.contains("received fatal alert") && (lower.contains("certificate") || lower.contains("unknown_ca")
                || lower.contains("access_denied"))) {
            return "TLS handshake failed: the server refused this client's certificate or requires one (" + msg + ")";
        }
        if (e instanceof EOFException || e instanceof SocketException || msg.contains("terminated the handshake")
                || msg.contains("Unsupported or unrecognized SSL message")) {
            return "TLS handshake failed: the server does not speak TLS on this port (is it the plaintext clientPort"
                    + " rather than the secureClientPort?) (" + msg + ")";
        }
        return "TLS handshake failed: " + details(causes);
    }

    /**
     * The JDK's hostname check (endpoint identification, which ZooKeeper's client uses in its
     * default FIPS mode) throws a bare {@link CertificateException} with a "No subject
     * alternative ..." or "No name matching ..." message; ZooKeeper's own trust manager (FIPS
     * mode off) an {@link SSLPeerUnverifiedException}.
     */
    static boolean isHostnameMismatch(Throwable e) {
        return isHostnameMismatch(causes(e));
    }

    private static boolean isHostnameMismatch(List<Throwable> causes) {
        for (Throwable t : causes) {
            String m = t.getMessage() == null ? "" : t.getMessage();
            if (t instanceof SSLPeerUnverifiedException || m.startsWith("No subject alternative") || m.startsWith("No name matching")
                    || m.startsWith("Failed to verify host")) {
                return true;
            }
        }
        return false;
    }

    /** The certificate a path validation failed at: subject, issuer and validity. */
    private static String certificateAt(CertPathValidatorException e) {
        if (e == null || e.getCertPath() == null || e.getIndex() < 0 || e.getIndex() >= e.getCertPath().getCertificates().size()) {
            return "";
        }
        Certificate c = e.getCertPath().getCertificates().get(e.getIndex());
        if (!(c instanceof X509Certificate x)) {
            return "";
        }
        return " (" + x.getSubjectX500Principal().getName() + ", issued by " + x.getIssuerX500Principal().getName()
                + ", valid from " + x.getNotBefore().toInstant() + " to " + x.getNotAfter().toInstant() + ")";
    }

    /** Whom {@code cert} is for: its subject and its DNS and IP subject alternative names. */
    static String names(X509Certificate cert) {
        List<String> names = new ArrayList<>();
        try {
            Collection<List<?>> alternatives = cert.getSubjectAlternativeNames();
            if (alternatives != null) {
                for (List<?> san : alternatives) {
                    Object type = san.get(0);
                    if (Integer.valueOf(2).equals(type)) {
                        names.add("dns:" + san.get(1));
                    } else if (Integer.valueOf(7).equals(type)) {
                        names.add("ip:" + san.get(1));
                    }
                }
            }
        } catch (CertificateParsingException e) {
            names.add("(unreadable subject alternative names: " + e.getMessage() + ")");
        }
        return cert.getSubjectX500Principal().getName() + " with subject alternative names "
                + (names.isEmpty() ? "(none)" : String.join(", ", names));
    }

    /** The outermost and the innermost message: the JDK's summary and the specific reason. */
    private static String details(List<Throwable> causes) {
        String outer = describe(causes.get(0));
        Throwable root = causes.get(causes.size() - 1);
        return root == causes.get(0) ? outer : outer + "; cause: " + describe(root);
    }

    private static List<Throwable> causes(Throwable e) {
        List<Throwable> out = new ArrayList<>();
        for (Throwable t = e; t != null && !out.contains(t); t = t.getCause()) {
            out.add(t);
        }
        return out;
    }

    private static <T extends Throwable> T find(List<Throwable> causes, Class<T> type) {
        for (Throwable t : causes) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
        }
        return null;
    }

    static String describe(Throwable e) {
        return e.getClass().getSimpleName() + (e.getMessage() == null ? "" : ": " + e.getMessage());
    }
}
