/* The firmware ELF as a programmer sees it: it must carry no .eeprom section. With one
 * (an EEMEM variable, all zeros), `avrdude -U eeprom:w:megawatt.elf` and simavr's loader
 * write it, and the meter boots with a corrupt configuration image (B,1,2) instead of a
 * blank one (B,1,1). Read with libelf, independently of simavr (whose board erases the
 * EEPROM to 0xFF after loading, and so would not show it). */
#include <fcntl.h>
#include <gelf.h>
#include <unistd.h>

#include "harness.h"

static void no_eeprom_section(void **s)
{
    const char *path = h_elf("MW_FIRMWARE_ELF", "build/firmware/megawatt.elf");
    assert_true(elf_version(EV_CURRENT) != EV_NONE);
    int fd = open(path, O_RDONLY);
    assert_true(fd >= 0);
    Elf *e = elf_begin(fd, ELF_C_READ, NULL);
    assert_non_null(e);
    size_t shstrndx;
    assert_int_equal(elf_getshdrstrndx(e, &shstrndx), 0);
    int sections = 0;
    for (Elf_Scn *scn = elf_nextscn(e, NULL); scn; scn = elf_nextscn(e, scn)) {
        GElf_Shdr sh;
        assert_non_null(gelf_getshdr(scn, &sh));
        const char *name = elf_strptr(e, shstrndx, sh.sh_name);
        assert_non_null(name);
        if (!strcmp(name, ".eeprom")) fail_msg("%s has a .eeprom section (%llu bytes)", path,
                                               (unsigned long long)sh.sh_size);
        sections++;
    }
    assert_true(sections > 3); /* really read: .text, .data, .bss at least */
    elf_end(e);
    close(fd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(no_eeprom_section),
    };
    return cmocka_run_group_tests_name("elf", tests, NULL, NULL);
}
