/*
 * test_kernel_registry.c — the public listing of the CPU micro-kernel registry
 * (gk_cpu_kernel_count / gk_cpu_kernel_info_get): at least one entry, ids in order, the last the
 * portable generic kernel, exactly one selected and it is the family gk_cpu_get_info reports
 * (also after gk_set_arch), the cpuid choice is the first usable entry, and bad arguments get
 * their status and a message naming the argument. Public API only.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "gemmkit.h"

static void test_listing(void) {
    const int count = gk_cpu_kernel_count();
    T_REQUIRE(count >= 1, "gk_cpu_kernel_count() = %d", count);
    int selected = -1, first_usable = -1;
    for (int i = 0; i < count; i++) {
        gk_cpu_kernel_info k;
        memset(&k, 0xff, sizeof k);
        T_REQUIRE(gk_cpu_kernel_info_get(i, &k) == GK_SUCCESS, "id %d: %s", i, gk_last_error());
        T_CHECK(k.id == i, "id %d reports id %d", i, k.id);
        T_REQUIRE(k.name && k.arch && *k.name && *k.arch, "id %d: empty name or arch", i);
        T_CHECK(strncmp(k.name, k.arch, strlen(k.arch)) == 0, "id %d: name %s not of family %s", i,
                k.name, k.arch);
        T_CHECK(k.mr >= 1 && k.nr >= 1, "id %d: micro-tile %dx%d", i, k.mr, k.nr);
        T_CHECK(k.usable == 0 || k.usable == 1, "id %d: usable=%d", i, k.usable);
        T_CHECK(k.selected == 0 || k.selected == 1, "id %d: selected=%d", i, k.selected);
        T_CHECK(!k.selected || k.usable, "id %d (%s) selected but not usable", i, k.name);
        if (k.selected) {
            T_CHECK(selected < 0, "ids %d and %d both selected", selected, i);
            selected = i;
        }
        if (k.usable && first_usable < 0) first_usable = i;
        if (i == count - 1) {
            T_CHECK(strcmp(k.arch, "generic") == 0, "last entry is %s, not generic", k.arch);
            T_CHECK(k.usable, "the generic kernel is not usable");
        }
    }
    T_REQUIRE(selected >= 0, "no entry selected");
    gk_cpu_info info;
    T_REQUIRE(gk_cpu_get_info(&info) == GK_SUCCESS, "gk_cpu_get_info: %s", gk_last_error());
    gk_cpu_kernel_info k;
    T_REQUIRE(gk_cpu_kernel_info_get(selected, &k) == GK_SUCCESS, "%s", gk_last_error());
    T_CHECK(strcmp(k.arch, info.arch) == 0, "selected %s, gk_cpu_get_info says %s", k.arch,
            info.arch);
    T_CHECK(k.mr == info.mr && k.nr == info.nr, "selected %dx%d, gk_cpu_get_info says %dx%d", k.mr,
            k.nr, info.mr, info.nr);
    if (strcmp(info.arch_reason, "cpuid") == 0)
        T_CHECK(selected == first_usable, "cpuid chose id %d, first usable is %d", selected,
                first_usable);
}

/* gk_set_arch moves the selection; "auto" moves it back. */
static void test_selection_follows_set_arch(void) {
    const int count = gk_cpu_kernel_count();
    gk_cpu_kernel_info k;
    T_REQUIRE(gk_set_arch("generic") == GK_SUCCESS, "gk_set_arch(generic): %s", gk_last_error());
    for (int i = 0; i < count; i++) {
        T_REQUIRE(gk_cpu_kernel_info_get(i, &k) == GK_SUCCESS, "%s", gk_last_error());
        T_CHECK(k.selected == (i == count - 1), "after gk_set_arch(generic) id %d (%s) selected=%d",
                i, k.arch, k.selected);
    }
    T_REQUIRE(gk_set_arch(NULL) == GK_SUCCESS, "gk_set_arch(NULL): %s", gk_last_error());
    gk_cpu_info info;
    T_REQUIRE(gk_cpu_get_info(&info) == GK_SUCCESS, "%s", gk_last_error());
    int n_selected = 0;
    for (int i = 0; i < count; i++) {
        T_REQUIRE(gk_cpu_kernel_info_get(i, &k) == GK_SUCCESS, "%s", gk_last_error());
        if (k.selected) {
            n_selected++;
            T_CHECK(strcmp(k.arch, info.arch) == 0, "after auto: selected %s, info %s", k.arch,
                    info.arch);
        }
    }
    T_CHECK(n_selected == 1, "after auto: %d entries selected", n_selected);
}

static void test_bad_arguments(void) {
    const int count = gk_cpu_kernel_count();
    gk_cpu_kernel_info k;
    const int bad[] = {-1, count, count + 1, -2147483647 - 1};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        memset(&k, 0x5a, sizeof k);
        gk_cpu_kernel_info before = k;
        gk_status s = gk_cpu_kernel_info_get(bad[i], &k);
        T_CHECK(s == GK_ERR_INVALID_VALUE, "id %d: status %d (%s)", bad[i], s, gk_status_string(s));
        T_CHECK(strstr(gk_last_error(), "kernel_id") != NULL, "id %d: message \"%s\"", bad[i],
                gk_last_error());
        T_CHECK(memcmp(&k, &before, sizeof k) == 0, "id %d: info written on failure", bad[i]);
    }
    gk_status s = gk_cpu_kernel_info_get(0, NULL);
    T_CHECK(s == GK_ERR_NULL_POINTER, "NULL info: status %d (%s)", s, gk_status_string(s));
    T_CHECK(strstr(gk_last_error(), "info") != NULL, "NULL info: message \"%s\"", gk_last_error());
    /* a good call clears the message */
    T_CHECK(gk_cpu_kernel_info_get(0, &k) == GK_SUCCESS && gk_last_error()[0] == '\0',
            "message \"%s\" left after a good call", gk_last_error());
}

int main(void) {
    T_RUN(test_listing);
    T_RUN(test_selection_follows_set_arch);
    T_RUN(test_bad_arguments);
    return t_finish();
}
