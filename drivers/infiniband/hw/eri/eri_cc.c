// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI: choosing the device's congestion-control algorithm.
 *
 * /sys/class/infiniband/<dev>/cc_algo lists the algorithms the device
 * implements with the active one in brackets; writing a name issues SET_CC.
 * QPs created afterwards use the algorithm.
 */
#include <linux/device.h>
#include <linux/string.h>
#include <linux/sysfs.h>

#include "eri.h"

static const char *const eri_cc_names[ERI_CC_NUM] = {
	[ERI_CC_SWIFT] = "swift",
	[ERI_CC_DCQCN] = "dcqcn",
	[ERI_CC_FIXED] = "fixed",
};

/**
 * eri_cc_init - take the device's algorithm after a reset
 * @edev: the device, being probed (nothing else sees it yet)
 */
void eri_cc_init(struct eri_dev *edev)
{
	mutex_init(&edev->cc_lock);
	edev->cc_algo = edev->attr.cc_default;
}

static ssize_t cc_algo_show(struct device *device,
			    struct device_attribute *attr, char *buf)
{
	struct eri_dev *edev =
		rdma_device_to_drv_device(device, struct eri_dev, ibdev);
	unsigned int i;
	int len = 0;

	mutex_lock(&edev->cc_lock);
	for (i = 0; i < ERI_CC_NUM; i++) {
		if (!(edev->attr.cc_algos & BIT(i)))
			continue;
		len += sysfs_emit_at(buf, len, i == edev->cc_algo ? "%s[%s]" :
				     "%s%s", len ? " " : "", eri_cc_names[i]);
	}
	mutex_unlock(&edev->cc_lock);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static ssize_t cc_algo_store(struct device *device,
			     struct device_attribute *attr, const char *buf,
			     size_t count)
{
	struct eri_dev *edev =
		rdma_device_to_drv_device(device, struct eri_dev, ibdev);
	int algo, ret;

	algo = sysfs_match_string(eri_cc_names, buf);
	if (algo < 0 || !(edev->attr.cc_algos & BIT(algo)))
		return -EINVAL;
	/* Keeps @cc_algo what the device was last told. */
	mutex_lock(&edev->cc_lock);
	ret = eri_com_set_cc(&edev->com, algo);
	if (!ret)
		edev->cc_algo = algo;
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
