// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * eri_sim debugfs: admin queue faults on demand, one directory per device,
 * /sys/kernel/debug/eri_sim/<auxiliary device name>/:
 *
 *   admin_delay_ms     how late a delayed completion comes
 *   admin_delay_next   the next N completions come admin_delay_ms late
 *   admin_drop_next    the next N commands run but never complete
 *   admin_fail_next    the next N commands fail without running, ...
 *   admin_fail_status  ... with this status (enum eri_aq_status)
 *   admin_stall        1: the device takes no admin command until 0
 *   wire_version       the wire protocol version the device speaks and
 *                      accepts (3)
 *
 * They let a test drive the driver's handling of admin timeouts and of a
 * device that stops answering, and a device's handling of a peer of
 * another version (Documentation/infiniband/eri.rst).
 */
#include <linux/debugfs.h>

#include "eri_sim.h"

static struct dentry *eri_sim_debugfs_root;

static int eri_sim_stall_get(void *data, u64 *val)
{
	struct eri_sim_dev *sdev = data;

	*val = READ_ONCE(sdev->fault.stall);
	return 0;
}

static int eri_sim_stall_set(void *data, u64 val)
{
	struct eri_sim_dev *sdev = data;

	WRITE_ONCE(sdev->fault.stall, !!val);
	/* Take the commands that waited, as a doorbell would. */
	if (!val)
		queue_work(sdev->wq, &sdev->aq_work);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(eri_sim_stall_fops, eri_sim_stall_get,
			 eri_sim_stall_set, "%llu\n");

void eri_sim_debugfs_add(struct eri_sim_dev *sdev)
{
	struct eri_sim_fault *f = &sdev->fault;
	struct dentry *d;

	if (!eri_sim_debugfs_root)
		return;
	d = debugfs_create_dir(dev_name(&sdev->bus.adev.dev),
			       eri_sim_debugfs_root);
	debugfs_create_u32("admin_delay_ms", 0600, d, &f->delay_ms);
	debugfs_create_atomic_t("admin_delay_next", 0600, d, &f->delay_next);
	debugfs_create_atomic_t("admin_drop_next", 0600, d, &f->drop_next);
	debugfs_create_atomic_t("admin_fail_next", 0600, d, &f->fail_next);
	debugfs_create_u8("admin_fail_status", 0600, d, &f->fail_status);
	debugfs_create_file_unsafe("admin_stall", 0600, d, sdev,
				   &eri_sim_stall_fops);
	debugfs_create_u8("wire_version", 0600, d, &sdev->wire_version);
	sdev->debugfs = d;
}

/* Once it returns no file of @sdev is in use. */
void eri_sim_debugfs_remove(struct eri_sim_dev *sdev)
{
	debugfs_remove_recursive(sdev->debugfs);
	sdev->debugfs = NULL;
}

void eri_sim_debugfs_init(void)
{
	eri_sim_debugfs_root = debugfs_create_dir("eri_sim", NULL);
}

void eri_sim_debugfs_exit(void)
{
	debugfs_remove_recursive(eri_sim_debugfs_root);
	eri_sim_debugfs_root = NULL;
}
