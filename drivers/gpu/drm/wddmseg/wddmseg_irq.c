// SPDX-License-Identifier: GPL-2.0-only
/*
 * wddmseg: the device's one interrupt.
 *
 * The device has a single interrupt (MSI-X, else INTx) with four causes
 * in IRQ_STATUS: FENCE and ERROR for the copy engine, VBLANK and
 * SCANOUT_ERROR for the display. It is requested here at probe, before
 * either user starts, and freed at unbind after both stopped, so the
 * display keeps its vblank and flip interrupts when the copy engine is
 * down. The handler acknowledges what it read and hands it to the
 * handlers the engine and the display registered for their bits. Both
 * share IRQ_MASK through wddmseg_irq_mask_update().
 */

#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/pci.h>

#include "wddmseg_device_types.h"
#include "wddmseg_drv.h"
#include "wddmseg_irq.h"
#include "wddmseg_hw.h"

static irqreturn_t wddmseg_irq_handler(int irq, void *arg)
{
	struct wddmseg_device *wdev = arg;
	u32 status = readl(wdev->mmio + WDDMSEG_REG_IRQ_STATUS);
	unsigned int i;

	/* All ones: the device is in D3hot (BAR0 not decoded) or gone. */
	if (!status || status == ~0u)
		return IRQ_NONE;
	writel(status, wdev->mmio + WDDMSEG_REG_IRQ_STATUS);

	for (i = 0; i < WDDMSEG_IRQ_CLIENTS; i++) {
		struct wddmseg_irq_client *c = &wdev->irq_client[i];
		void (*handler)(struct wddmseg_device *wdev, u32 status);

		handler = READ_ONCE(c->handler);
		if (handler && (status & READ_ONCE(c->bits)))
			handler(wdev, status);
	}
	return IRQ_HANDLED;
}

/**
 * wddmseg_irq_mask_update - change bits of IRQ_MASK
 * @wdev: device
 * @clear: bits to clear
 * @set: bits to set
 *
 * The copy engine and the display share IRQ_MASK: every change goes
 * through the driver's copy, under one lock, and writes it whole.
 */
void wddmseg_irq_mask_update(struct wddmseg_device *wdev, u32 clear, u32 set)
{
	unsigned long flags;

	spin_lock_irqsave(&wdev->irq_lock, flags);
	wdev->irq_mask = (wdev->irq_mask & ~clear) | set;
	writel(wdev->irq_mask, wdev->mmio + WDDMSEG_REG_IRQ_MASK);
	spin_unlock_irqrestore(&wdev->irq_lock, flags);
}

/**
 * wddmseg_irq_resume - program IRQ_MASK again after a power loss
 * @wdev: device
 *
 * The register came back at its reset value; the driver's copy still says
 * what the engine and the display want.
 */
void wddmseg_irq_resume(struct wddmseg_device *wdev)
{
	wddmseg_irq_mask_update(wdev, 0, 0);
}

/**
 * wddmseg_irq_register - hand some causes of the interrupt to a handler
 * @wdev: device
 * @id: who handles them
 * @bits: the IRQ_STATUS bits it handles
 * @handler: called in hard interrupt context with every bit that was set
 *
 * Register before unmasking @bits (wddmseg_irq_mask_update()).
 */
void wddmseg_irq_register(struct wddmseg_device *wdev,
			  enum wddmseg_irq_client_id id, u32 bits,
			  void (*handler)(struct wddmseg_device *wdev,
					  u32 status))
{
	struct wddmseg_irq_client *c = &wdev->irq_client[id];
	unsigned long flags;

	spin_lock_irqsave(&wdev->irq_lock, flags);
	WRITE_ONCE(c->bits, bits);
	WRITE_ONCE(c->handler, handler);
	spin_unlock_irqrestore(&wdev->irq_lock, flags);
}

/**
 * wddmseg_irq_unregister - mask a handler's causes and forget the handler
 * @wdev: device
 * @id: who handled them
 *
 * On return the handler no longer runs. May sleep.
 */
void wddmseg_irq_unregister(struct wddmseg_device *wdev,
			    enum wddmseg_irq_client_id id)
{
	struct wddmseg_irq_client *c = &wdev->irq_client[id];
	unsigned long flags;

	spin_lock_irqsave(&wdev->irq_lock, flags);
	wdev->irq_mask &= ~c->bits;
	writel(wdev->irq_mask, wdev->mmio + WDDMSEG_REG_IRQ_MASK);
	WRITE_ONCE(c->handler, NULL);
	spin_unlock_irqrestore(&wdev->irq_lock, flags);
	if (wdev->irq_ready)
		synchronize_irq(pci_irq_vector(to_pci_dev(wdev->drm.dev), 0));
}

static void wddmseg_irq_fini(void *data)
{
	struct wddmseg_device *wdev = data;
	struct pci_dev *pdev = to_pci_dev(wdev->drm.dev);

	wddmseg_irq_mask_update(wdev, ~0u, 0);
	free_irq(pci_irq_vector(pdev, 0), wdev);
	pci_free_irq_vectors(pdev);
	wdev->irq_ready = false;
}

/**
 * wddmseg_irq_init - request the device's interrupt, everything masked
 * @wdev: device
 *
 * Freed at unbind (a devres action), after the engine stopped: call it
 * before wddmseg_engine_init(). Without the interrupt the engine does not
 * start and there is no display.
 *
 * Return: 0 or a negative errno.
 */
int wddmseg_irq_init(struct wddmseg_device *wdev)
{
	struct pci_dev *pdev = to_pci_dev(wdev->drm.dev);
	int ret;

	wddmseg_irq_mask_update(wdev, ~0u, 0);
	ret = pci_alloc_irq_vectors(pdev, 1, 1, PCI_IRQ_MSIX | PCI_IRQ_INTX);
	if (ret < 0)
		return ret;
	ret = request_irq(pci_irq_vector(pdev, 0), wddmseg_irq_handler,
			  IRQF_SHARED, WDDMSEG_DRIVER_NAME, wdev);
	if (ret) {
		pci_free_irq_vectors(pdev);
		return ret;
	}
	writel(~0u, wdev->mmio + WDDMSEG_REG_IRQ_STATUS);
	wdev->irq_ready = true;
	return devm_add_action_or_reset(&pdev->dev, wddmseg_irq_fini, wdev);
}
