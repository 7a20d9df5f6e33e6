// SPDX-License-Identifier: GPL-2.0 OR BSD-2-Clause
/*
 * ERI on the auxiliary bus: binds the driver to the ERI devices offered
 * there, such as the software device (eri_sim).  All bus specifics of the
 * driver live in this file.
 */
#include <linux/auxiliary_bus.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>

#include "eri.h"

static int eri_aux_probe(struct auxiliary_device *adev,
			 const struct auxiliary_device_id *id)
{
	return eri_probe(to_eri_bus_dev(adev));
}

static void eri_aux_remove(struct auxiliary_device *adev)
{
	eri_remove(to_eri_bus_dev(adev));
}

static const struct auxiliary_device_id eri_aux_ids[] = {
	{ .name = "eri_sim." ERI_AUX_DEV_NAME },
	{}
};
MODULE_DEVICE_TABLE(auxiliary, eri_aux_ids);

static struct auxiliary_driver eri_aux_driver = {
	.name = "eri",
	.probe = eri_aux_probe,
	.remove = eri_aux_remove,
	.id_table = eri_aux_ids,
};

int eri_aux_driver_register(void)
{
	return auxiliary_driver_register(&eri_aux_driver);
}

void eri_aux_driver_unregister(void)
{
	auxiliary_driver_unregister(&eri_aux_driver);
}
