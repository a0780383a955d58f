package io.coord.spring.boot;

import io.coord.ConfigurationException;
import java.lang.reflect.Method;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.aopalliance.intercept.MethodInterceptor;
import org.springframework.aop.framework.AbstractAdvisingBeanPostProcessor;
import org.springframework.aop.support.AopUtils;
import org.springframework.aop.support.ComposablePointcut;
import org.springframework.aop.support.DefaultPointcutAdvisor;
import org.springframework.aop.support.annotation.AnnotationMatchingPointcut;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.AnnotationUtils;
import org.springframework.util.ClassUtils;
import org.springframework.util.ReflectionUtils;

/**
 * Wraps each bean with a {@link LeaderOnly @LeaderOnly} or {@link CoordLocked @CoordLocked} method
 * in a class proxy (Spring's {@code ProxyFactory}, no AspectJ) whose interceptor hands every call
 * of such a method to {@link CoordJobs}; other methods pass straight through. The annotations are
 * checked here, so a bad one fails startup naming the method and the value.
 *
 * <p>Ordered before Spring's {@code @Scheduled} post-processor (lowest precedence), so the tasks
 * it schedules call the proxy, not the bare bean; a bean some other advising post-processor
 * already proxied gets this interceptor added to its proxy, first in the chain.
 */
final class CoordJobsPostProcessor extends AbstractAdvisingBeanPostProcessor {
    private static final long serialVersionUID = 1L;

    private static final List<Class<? extends java.lang.annotation.Annotation>> ANNOTATIONS = List.of(LeaderOnly.class, CoordLocked.class);

    private final transient Map<Method, JobSpec> specs = new ConcurrentHashMap<>();

    CoordJobsPostProcessor(ObjectProvider<CoordJobs> jobs) {
        setProxyTargetClass(true); // a JDK proxy would hide methods not on an interface from @Scheduled
        setBeforeExistingAdvisors(true);
        setOrder(Ordered.LOWEST_PRECEDENCE - 100);
        MethodInterceptor interceptor = invocation -> {
            Class<?> target = AopUtils.getTargetClass(invocation.getThis());
            Method method = AopUtils.getMostSpecificMethod(invocation.getMethod(), target);
            JobSpec spec = specs.computeIfAbsent(method, m -> JobSpec.of(target, m).orElse(null));
            return spec == null ? invocation.proceed() : jobs.getObject().invoke(invocation, spec);
        };
        this.advisor = new DefaultPointcutAdvisor(new ComposablePointcut(AnnotationMatchingPointcut.forMethodAnnotation(LeaderOnly.class))
                .union(AnnotationMatchingPointcut.forMethodAnnotation(CoordLocked.class)), interceptor);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        Class<?> type = AopUtils.getTargetClass(bean);
        if (!AnnotationUtils.isCandidateClass(type, ANNOTATIONS)) {
            return bean; // a JDK or framework class: no need to look at each method
        }
        ReflectionUtils.doWithMethods(type, m -> JobSpec.of(type, m).ifPresent(spec -> {
            requireModule(spec, m);
            specs.put(m, spec);
        }));
        return super.postProcessAfterInitialization(bean, beanName);
    }

    /** Every guarded method found so far (the elections to join at startup). */
    List<JobSpec> specs() {
        return List.copyOf(specs.values());
    }

    private void requireModule(JobSpec spec, Method m) {
        String[] need = switch (spec.mode()) {
            case LEADER -> new String[] {"io.coord.election.Election", "coord-election", "@LeaderOnly"};
            case LOCK -> new String[] {"io.coord.lock.Locks", "coord-lock", "@CoordLocked"};
        };
        if (!ClassUtils.isPresent(need[0], m.getDeclaringClass().getClassLoader())) {
            throw new ConfigurationException(need[2] + " on " + m.getDeclaringClass().getName() + "." + m.getName()
                    + "() needs io.coord:" + need[1] + " on the classpath; without it the job would run unguarded on every instance");
        }
    }
}
