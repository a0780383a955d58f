package io.coord.cli.doctor;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Asks one server a four-letter word on its client port ({@code mntr}, {@code cons}, {@code wchp},
 * {@code srvr}). A server only answers the words in its {@code 4lw.commands.whitelist}; the answer
 * then says so, and {@link Answer#refused()} is true.
 */
final class FourLetterWords {
    private static final int MAX_ANSWER_BYTES = 4 * 1024 * 1024;

    private FourLetterWords() {
    }

    /**
     * What a server said, or why it said nothing.
     *
     * @param text  the answer, null if none came
     * @param error why there is no usable answer (unreachable, not whitelisted, not serving); null if usable
     */
    record Answer(String text, String error, boolean refused) {
        boolean ok() {
            return error == null;
        }
    }

    /** The {@code host:port} entries of a connect string, without its chroot. */
    static List<String> hosts(String connectString) {
        int slash = connectString.indexOf('/');
        String hostPart = slash >= 0 ? connectString.substring(0, slash) : connectString;
        List<String> hosts = new ArrayList<>();
        for (String h : hostPart.split(",")) {
            if (!h.isBlank()) {
                hosts.add(h.trim());
            }
        }
        return hosts;
    }

    static Answer ask(String address, String word, Duration timeout) {
        int colon = address.lastIndexOf(':');
        String host = colon > 0 ? address.substring(0, colon) : address;
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        int port;
        try {
            port = colon > 0 ? Integer.parseInt(address.substring(colon + 1)) : 2181;
        } catch (NumberFormatException e) {
            return new Answer(null, "bad address " + address, false);
        }
        int millis = (int) Math.max(1, Math.min(Integer.MAX_VALUE, timeout.toMillis()));
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress(host, port), millis);
            socket.setSoTimeout(millis);
            socket.getOutputStream().write(word.getBytes(StandardCharsets.US_ASCII));
            socket.getOutputStream().flush();
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buffer = new byte[8192];
            for (int n; answer.size() < MAX_ANSWER_BYTES && (n = in.read(buffer)) >= 0; ) {
                answer.write(buffer, 0, n);
            }
            return judge(word, answer.toString(StandardCharsets.UTF_8));
        } catch (SocketTimeoutException e) {
            return new Answer(null, "no answer to " + word + " within " + millis + " ms", false);
        } catch (IOException | IllegalArgumentException e) {
            return new Answer(null, "cannot reach " + address + " (" + e.getMessage() + ")", false);
        }
    }

    /** Sorts an answer into usable, refused (not whitelisted) or empty. */
    static Answer judge(String word, String text) {
        if (text.contains("is not executed because it is not in the whitelist")) {
            return new Answer(text, word + " is not in this server's 4lw.commands.whitelist", true);
        }
        if (text.contains("not currently serving requests")) {
            return new Answer(text, "not serving requests (no quorum, or still starting)", false);
        }
        if (text.isBlank()) {
            return new Answer(text, "closed the connection without answering " + word
                    + " (four-letter words disabled, or a TLS-only port?)", true);
        }
        return new Answer(text, null, false);
    }
}
