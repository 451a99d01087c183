/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * wddmseg: the device's interrupt, shared by the engine and the display
 * (wddmseg_irq.c).
 */
#ifndef WDDMSEG_IRQ_H
#define WDDMSEG_IRQ_H

#include <linux/types.h>

#include "wddmseg_device_types.h"

int wddmseg_irq_init(struct wddmseg_device *wdev);
void wddmseg_irq_resume(struct wddmseg_device *wdev);
void wddmseg_irq_mask_update(struct wddmseg_device *wdev, u32 clear, u32 set);
void wddmseg_irq_register(struct wddmseg_device *wdev,
			  enum wddmseg_irq_client_id id, u32 bits,
			  void (*handler)(struct wddmseg_device *wdev,
					  u32 status));
void wddmseg_irq_unregister(struct wddmseg_device *wdev,
			    enum wddmseg_irq_client_id id);

#endif /* WDDMSEG_IRQ_H */
