// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI: choosing the device's congestion-control algorithm.
 *
 * The device numbers its algorithms and names them (QUERY_CC); the driver
 * keeps no table of its own.  /sys/class/infiniband/<dev>/cc_algo lists the
 * names with the active one in brackets; writing a name issues SET_CC with
 * its index.  QPs created afterwards use the algorithm.
 */
#include <linux/ctype.h>
#include <linux/device.h>
#include <linux/lockdep.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "eri.h"

static bool eri_cc_chars_ok(const char *s, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (!islower(s[i]) && !isdigit(s[i]) && s[i] != '_')
			return false;
	return true;
}

/* A name as the device must give it: [a-z0-9_]+, NUL-terminated, in @desc. */
static bool eri_cc_name_ok(const struct eri_cc_desc *desc)
{
	size_t len = strnlen(desc->name, sizeof(desc->name));

	if (!len || len == sizeof(desc->name))
		return false;
	return eri_cc_chars_ok(desc->name, len);
}

/**
 * eri_cc_qp_ok - whether a QUERY_QP_CC answer is well formed
 * @cc: the answer, as the device wrote it
 *
 * Return: true when its algorithm is an index, its mode is [a-z0-9_]*
 * NUL-padded and its reserved bytes are zero.
 */
bool eri_cc_qp_ok(const struct eri_qp_cc *cc)
{
	size_t len = strnlen(cc->mode, sizeof(cc->mode));

	return cc->algo < ERI_CC_MAX_ALGOS && len < sizeof(cc->mode) &&
	       eri_cc_chars_ok(cc->mode, len) &&
	       !memchr_inv(cc->mode + len, 0, sizeof(cc->mode) - len) &&
	       !memchr_inv(cc->reserved1, 0, sizeof(cc->reserved1)) &&
	       !memchr_inv(cc->reserved2, 0, sizeof(cc->reserved2));
}

/*
 * Learn the names again: an algorithm may have come or gone.  A device
 * without QUERY_CC gets "cc<n>" for each bit of cc_algos; so does an entry
 * whose name is malformed or repeats an earlier one.
 */
static int eri_cc_refresh_names_locked(struct eri_dev *edev)
{
	struct eri_cc_desc *descs;
	unsigned int i, j;
	int ret;

	lockdep_assert_held(&edev->cc_lock);
	memset(edev->cc_names, 0, sizeof(edev->cc_names));
	if (!(edev->attr.caps & ERI_DEV_CAP_CC_NAMES)) {
		for (i = 0; i < ERI_CC_MAX_ALGOS; i++)
			if (edev->attr.cc_algos & BIT(i))
				snprintf(edev->cc_names[i], ERI_CC_NAME_MAX,
					 "cc%u", i);
		return 0;
	}

	descs = kcalloc(ERI_CC_MAX_ALGOS, sizeof(*descs), GFP_KERNEL);
	if (!descs)
		return -ENOMEM;
	ret = eri_com_query_cc(&edev->com, descs);
	if (ret)
		goto out_free;
	for (i = 0; i < ERI_CC_MAX_ALGOS; i++) {
		if (!(le32_to_cpu(descs[i].flags) & ERI_CC_DESC_VALID))
			continue;
		snprintf(edev->cc_names[i], ERI_CC_NAME_MAX, "cc%u", i);
		if (!eri_cc_name_ok(&descs[i]))
			continue;
		for (j = 0; j < i; j++)
			if (!strcmp(edev->cc_names[j], descs[i].name))
				break;
		if (j == i)
			strscpy(edev->cc_names[i], descs[i].name,
				ERI_CC_NAME_MAX);
	}
out_free:
	kfree(descs);
	return ret;
}

/**
 * eri_cc_init - take the device's algorithm and names after a reset
 * @edev: the device, being probed (nothing else sees it yet)
 *
 * Sleeps (QUERY_CC).
 *
 * Return: 0 or a negative errno.
 */
int eri_cc_init(struct eri_dev *edev)
{
	int ret;

	mutex_init(&edev->cc_lock);
	mutex_lock(&edev->cc_lock);
	edev->cc_algo = edev->attr.cc_default;
	ret = eri_cc_refresh_names_locked(edev);
	mutex_unlock(&edev->cc_lock);
	return ret;
}

/**
 * eri_cc_name - the name of one of the device's algorithms
 * @edev: the device
 * @algo: an algorithm index, as QUERY_QP gives it
 * @name: ERI_CC_NAME_MAX bytes for the name, "unknown" for an index the
 *	device did not name at the last QUERY_CC
 *
 * Sleeps (the lock).
 */
void eri_cc_name(struct eri_dev *edev, u32 algo, char *name)
{
	mutex_lock(&edev->cc_lock);
	if (algo < ERI_CC_MAX_ALGOS && edev->cc_names[algo][0])
		strscpy(name, edev->cc_names[algo], ERI_CC_NAME_MAX);
	else
		strscpy(name, "unknown", ERI_CC_NAME_MAX);
	mutex_unlock(&edev->cc_lock);
}

static ssize_t cc_algo_show(struct device *device,
			    struct device_attribute *attr, char *buf)
{
	struct eri_dev *edev =
		rdma_device_to_drv_device(device, struct eri_dev, ibdev);
	unsigned int i;
	int len = 0, ret;

	mutex_lock(&edev->cc_lock);
	ret = eri_cc_refresh_names_locked(edev);
	for (i = 0; !ret && i < ERI_CC_MAX_ALGOS; i++) {
		if (!edev->cc_names[i][0])
			continue;
		len += sysfs_emit_at(buf, len, i == edev->cc_algo ? "%s[%s]" :
				     "%s%s", len ? " " : "", edev->cc_names[i]);
	}
	mutex_unlock(&edev->cc_lock);
	if (ret)
		return ret;
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static ssize_t cc_algo_store(struct device *device,
			     struct device_attribute *attr, const char *buf,
			     size_t count)
{
	struct eri_dev *edev =
		rdma_device_to_drv_device(device, struct eri_dev, ibdev);
	unsigned int i;
	int ret;

	/* Keeps @cc_algo what the device was last told. */
	mutex_lock(&edev->cc_lock);
	ret = eri_cc_refresh_names_locked(edev);
	if (ret)
		goto out_unlock;
	for (i = 0; i < ERI_CC_MAX_ALGOS; i++)
		if (edev->cc_names[i][0] && sysfs_streq(buf, edev->cc_names[i]))
			break;
	if (i == ERI_CC_MAX_ALGOS) {
		ret = -EINVAL;
		goto out_unlock;
	}
	ret = eri_com_set_cc(&edev->com, i);
	if (!ret)
		edev->cc_algo = i;
out_unlock:
	mutex_unlock(&edev->cc_lock);
	return ret ? ret : count;
}

static DEVICE_ATTR_RW(cc_algo);

static struct attribute *eri_cc_attrs[] = {
	&dev_attr_cc_algo.attr,
	NULL,
};

const struct attribute_group eri_cc_attr_group = {
	.attrs = eri_cc_attrs,
};
