package io.coord.membership;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Closes what a test opened (groups, executors, churn threads), in reverse order, after the test
 * and before the {@code ZooKeeperExtension} closes its clients and checks for leaks: register it
 * on an instance field, the extension on a static one.
 */
final class Closer implements AfterEachCallback {
    private final List<AutoCloseable> closeables = new ArrayList<>();

    <T extends AutoCloseable> T add(T closeable) {
        synchronized (closeables) {
            closeables.add(closeable);
        }
        return closeable;
    }

    @Override
    public void afterEach(ExtensionContext context) throws Exception {
        List<AutoCloseable> all;
        synchronized (closeables) {
            all = new ArrayList<>(closeables);
            closeables.clear();
        }
        Collections.reverse(all);
        Exception first = null;
        for (AutoCloseable c : all) {
            try {
                c.close();
            } catch (Exception e) {
                first = first == null ? e : first;
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
